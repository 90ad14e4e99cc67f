"""Route modules of the sandbox, one per area."""
