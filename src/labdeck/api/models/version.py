"""The instance version (`GET /version`)."""

from __future__ import annotations

from labdeck.api.models.base import ApiModel
from labdeck.domain.digits import parse_digits


class Version(ApiModel):
    version: str
    revision: str | None = None
    enterprise: bool | None = None

    @property
    def major_minor(self) -> tuple[int, int] | None:
        """`(major, minor)` of `version` (`"17.5.1-ee"` -> `(17, 5)`), or None when unreadable."""
        parts = self.version.split(".")
        major, minor = (parse_digits(parts[0]), parse_digits(parts[1])) if len(parts) > 1 else (None, None)
        return (major, minor) if major is not None and minor is not None else None
