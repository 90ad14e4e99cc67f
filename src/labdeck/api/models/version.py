"""The instance version (`GET /version`)."""

from __future__ import annotations

from labdeck.api.models.base import ApiModel


class Version(ApiModel):
    version: str
    revision: str | None = None
    enterprise: bool | None = None

    @property
    def major_minor(self) -> tuple[int, int] | None:
        """`(major, minor)` of `version` (`"17.5.1-ee"` -> `(17, 5)`), or None when unreadable."""
        parts = self.version.split(".")
        try:
            return int(parts[0]), int(parts[1])
        except (IndexError, ValueError):
            return None
