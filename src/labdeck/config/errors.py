"""The one error type of the configuration layer."""

from __future__ import annotations

from labdeck.api.errors import LabdeckError


class ConfigError(LabdeckError):
    """The config (or a token source it names) is unusable. The message is one line, safe to show."""
