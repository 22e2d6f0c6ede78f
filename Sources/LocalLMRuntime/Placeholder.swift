// Filled by the runtime issue.
