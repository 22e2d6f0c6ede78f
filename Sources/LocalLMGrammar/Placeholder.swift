// Filled by the grammar issue.
