// Filled by the tokenizer issue.
