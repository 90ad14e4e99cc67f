"""labdeck: a terminal console for operators of GitLab-compatible instances (REST API v4)."""

__version__ = "0.1.0"
