// Tests for this module land with its issue.
