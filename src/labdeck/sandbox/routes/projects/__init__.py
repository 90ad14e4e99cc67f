"""Sandbox routes of projects and their resources."""
