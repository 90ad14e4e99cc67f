"""Sandbox routes of deployments and environments."""
