"""Sandbox routes of the issues area."""
