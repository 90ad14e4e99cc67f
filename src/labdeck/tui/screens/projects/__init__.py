"""The Projects area: the project list and the project view with its tabs and dialogs."""
