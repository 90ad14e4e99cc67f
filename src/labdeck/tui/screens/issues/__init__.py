"""The Issues area: the query view, issue rendering and the single-issue dialogs."""
