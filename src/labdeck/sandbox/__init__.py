"""The embedded GitLab-compatible instance: ASGI app, store, seed data, routes per area, faults.

Imports only `labdeck.domain` of labdeck: never the client, never Textual.
"""
