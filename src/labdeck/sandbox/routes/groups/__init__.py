"""Sandbox routes of the groups area."""
