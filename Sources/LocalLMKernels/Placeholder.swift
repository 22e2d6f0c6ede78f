// Filled by the kernels issue.
