"""Reusable widgets (ResourceTable and friends)."""
