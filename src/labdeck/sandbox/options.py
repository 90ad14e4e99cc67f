"""Options of the sandbox (`SandboxOptions`) and the parsers of their command-line forms.

`--latency 50ms` and `--faults 429=0.05,503=0.05,reset=0.02` are parsed here, so the app, `serve` and the
tests share one reading of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Scale = Literal["demo", "large", "tiny", "huge"]
SCALES: tuple[str, ...] = ("demo", "large", "tiny", "huge")
# `huge`: the tiny seeded instance plus this many virtual issues, users and projects (routes/virtual.py).
HUGE = 1_000_000
Edition = Literal["ce", "ee"]
EDITIONS: tuple[str, ...] = ("ce", "ee")
DEFAULT_GITLAB_VERSION = "17.6.0"
_VERSION = re.compile(r"^\s*([0-9]{1,3})\.([0-9]{1,3})(?:\.([0-9]{1,3}))?\s*$")

# Fault kinds: 429 carries Retry-After, 429r carries no rate-limit hint, reset aborts the connection,
# slow adds `slow_seconds`, badjson returns a truncated JSON body.
FAULT_KINDS: tuple[str, ...] = ("429", "429r", "500", "502", "503", "504", "reset", "slow", "badjson")

_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s)?\s*$")


def parse_latency_ms(text: str) -> float:
    """Read `50ms`, `0.2s` or a bare number of milliseconds; raise ValueError otherwise."""
    match = _DURATION.match(text)
    if not match:
        raise ValueError(f"invalid latency {text!r}: use e.g. 50ms or 0.2s")
    value = float(match.group(1))
    return value * 1000 if match.group(2) == "s" else value


def parse_faults(spec: str) -> dict[str, float]:
    """Read `429=0.05,reset=0.02` into `{kind: probability}`; raise ValueError on an unknown kind or a
    probability outside 0..1 or a total above 1."""
    faults: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in spec.split(","))):
        kind, sep, value = part.partition("=")
        kind = kind.strip()
        if not sep or kind not in FAULT_KINDS:
            raise ValueError(f"invalid fault {part!r}: kinds are {', '.join(FAULT_KINDS)}")
        try:
            probability = float(value)
        except ValueError:
            raise ValueError(f"invalid probability in {part!r}") from None
        if not 0.0 <= probability <= 1.0:
            raise ValueError(f"probability out of range in {part!r}")
        faults[kind] = probability
    if sum(faults.values()) > 1.0 + 1e-9:
        raise ValueError("fault probabilities add up to more than 1")
    return faults


def parse_gitlab_version(text: str) -> tuple[int, int, int]:
    """Read `15.0` or `16.11.2` into `(major, minor, patch)`; raise ValueError otherwise."""
    match = _VERSION.match(text)
    if not match:
        raise ValueError(f"invalid GitLab version {text!r}: use e.g. 16.11 or 15.0.3")
    return int(match.group(1)), int(match.group(2)), int(match.group(3) or 0)


@dataclass(frozen=True)
class SandboxOptions:
    """Everything that shapes one sandbox instance. Defaults give a quiet, fault-free demo instance."""

    seed: int = 1
    scale: Scale = "demo"
    latency_ms: float = 0
    faults: str = ""
    fault_seed: int = 0
    async_delay: float = 1.0
    base_url: str | None = None
    slow_seconds: float = 3.0
    rate_limit: int = 2000
    rate_window: float = 60.0
    edition: Edition = "ee"  # ce answers the premium endpoints as GitLab Community Edition does
    gitlab_version: str = DEFAULT_GITLAB_VERSION  # endpoints introduced later answer 404
    graphql: bool = True  # False: no /api/graphql (404), as an instance without GraphQL
    # False: the registry has no metadata database (most self-managed instances): a repository's
    # `size=true` answers `"size": null`, as GitLab's `ContainerRepository#size` is nil unless
    # `gitlab_api_client.supports_gitlab_api?` (`app/models/container_repository.rb`)
    registry_sizes: bool = True
    # Listings served from records generated on demand (issue 25): `GET /issues`, `/users`, `/projects`
    # of this many records, whatever the scale (0: the seeded records). `huge` sets a million of each.
    virtual_issues: int = 0
    virtual_users: int = 0
    virtual_projects: int = 0
    # The largest request body read from an authenticated caller (`bodies.py`): GitLab's default
    # max_attachment_size, 100 MiB; above it 413 as GitLab's `file_too_large!`.
    max_body: int = 100 * 1024 * 1024
    fault_map: dict[str, float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.scale not in SCALES:
            raise ValueError(f"unknown scale {self.scale!r}: use one of {', '.join(SCALES)}")
        if self.edition not in EDITIONS:
            raise ValueError(f"unknown edition {self.edition!r}: use ce or ee")
        parse_gitlab_version(self.gitlab_version)
        object.__setattr__(self, "fault_map", parse_faults(self.faults))
        if self.scale == "huge":
            for name in ("virtual_issues", "virtual_users", "virtual_projects"):
                if not getattr(self, name):
                    object.__setattr__(self, name, HUGE)
        if min(self.virtual_issues, self.virtual_users, self.virtual_projects) < 0:
            raise ValueError("virtual record counts cannot be negative")
        if self.max_body < 0:
            raise ValueError("max_body cannot be negative")

    @property
    def version_tuple(self) -> tuple[int, int, int]:
        return parse_gitlab_version(self.gitlab_version)
