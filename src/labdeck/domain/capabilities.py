"""What an instance can do: its edition and version, read once per session, and the features that need a
paid tier or a newer GitLab (`Capabilities.supports(feature)` gives the reason a feature is missing, or None).
The features themselves (Premium or not, the version that introduced them) are objects
(`labdeck.domain.features`), held by the endpoints that need them; `supports` reads the object it is given.

Pure rules, no I/O: `api/instance.py` reads `/metadata` or `/version` and builds `Capabilities` with
`capabilities_from_version`; the TUI asks `supports()` before offering a feature.

Reading the edition: `enterprise` (in `/metadata` and `/version` since GitLab 15.6) when present, else the
version's `-ee` suffix (Community Edition has none; a `-pre` build, like GitLab.com's, says nothing). An
Enterprise instance may still lack a Premium licence; the API does not tell a non-administrator, so an EE
instance is taken to have every tier and a refusal there is explained where it happens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Final, Literal

from labdeck.domain.features import FEATURES, Feature

Edition = Literal["ce", "ee"]
PREMIUM: Final = "needs GitLab Premium"
__all__ = ["FEATURES", "PREMIUM", "Capabilities", "Edition", "Feature", "capabilities_from_version",
           "parse_version"]


_VERSION: Final = re.compile(r"^\s*([0-9]+)\.([0-9]+)(?:\.([0-9]+))?(?:-(\w+))?")


def parse_version(text: str) -> tuple[tuple[int, int, int] | None, str]:
    """`"16.11.2-ee"` -> `((16, 11, 2), "ee")`; the suffix is `""` when absent; `(None, "")` when
    unreadable."""
    match = _VERSION.match(text or "")
    if not match:
        return None, ""
    major, minor, patch, suffix = match.groups()
    return (int(major), int(minor), int(patch or 0)), (suffix or "").lower()


@dataclass(frozen=True)
class Capabilities:
    """The instance's edition (None: not known) and version (None: not known). Unknown facts never hide a
    feature: only what is known to be missing is."""

    edition: Edition | None = None
    version: tuple[int, int, int] | None = None
    version_text: str = ""

    def supports(self, feature: Feature) -> str | None:
        """None when the instance can have `feature`, else why not: "needs GitLab Premium" or
        "needs GitLab 15.2"."""
        if feature.introduced is not None and self.version is not None \
                and self.version[:2] < feature.introduced:
            major, minor = feature.introduced
            return f"needs GitLab {major}.{minor}"
        if feature.premium and self.edition == "ce":
            return PREMIUM
        return None

    def label(self) -> str:
        """`GitLab 16.11.0 EE`, `GitLab 15.0.3 CE`, `GitLab 17.7.0-pre`; `""` when nothing is known."""
        if self.version is None:
            return ""
        major, minor, patch = self.version
        edition = f" {self.edition.upper()}" if self.edition else ""
        pre = "-pre" if self.version_text.endswith("-pre") and not self.edition else ""
        return f"GitLab {major}.{minor}.{patch}{pre}{edition}"


def capabilities_from_version(body: Any) -> Capabilities:
    """Capabilities from a `/metadata` or `/version` answer (any JSON: what cannot be read stays unknown)."""
    if not isinstance(body, dict):
        return Capabilities()
    raw = body.get("version")
    text = raw if isinstance(raw, str) else ""
    version, suffix = parse_version(text)
    enterprise = body.get("enterprise")
    edition: Edition | None
    if isinstance(enterprise, bool):
        edition = "ee" if enterprise else "ce"
    elif version is None or suffix == "pre":
        edition = None
    else:
        edition = "ee" if suffix == "ee" else "ce"
    return Capabilities(edition=edition, version=version, version_text=text[:40])
