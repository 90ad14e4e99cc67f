"""GitLab access levels (member roles): their numbers, their names, and reading either.

The values are those of GitLab's API docs plus the appendix: 15 (Planner) and 60 (Admin, protected
environments only). Owner (50) can be set on group memberships only.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Final

from labdeck.domain.digits import parse_digits


class AccessLevel(IntEnum):
    """A GitLab access level; `int(level)` is the API value and `level.label` its display name."""

    NO_ACCESS = 0
    MINIMAL_ACCESS = 5
    GUEST = 10
    PLANNER = 15
    REPORTER = 20
    DEVELOPER = 30
    MAINTAINER = 40
    OWNER = 50
    ADMIN = 60

    @property
    def label(self) -> str:
        return _LABELS[self]

    def __str__(self) -> str:
        return self.label


_LABELS: Final[dict[AccessLevel, str]] = {
    AccessLevel.NO_ACCESS: "No access",
    AccessLevel.MINIMAL_ACCESS: "Minimal access",
    AccessLevel.GUEST: "Guest",
    AccessLevel.PLANNER: "Planner",
    AccessLevel.REPORTER: "Reporter",
    AccessLevel.DEVELOPER: "Developer",
    AccessLevel.MAINTAINER: "Maintainer",
    AccessLevel.OWNER: "Owner",
    AccessLevel.ADMIN: "Admin",
}

# Levels a group or project membership can be given (Admin is for protected environments only).
MEMBER_LEVELS: Final = tuple(level for level in AccessLevel if level is not AccessLevel.ADMIN)
# Levels a project membership can be given (Owner is valid to set only for groups).
PROJECT_MEMBER_LEVELS: Final = tuple(level for level in MEMBER_LEVELS if level is not AccessLevel.OWNER)
# Levels a protected environment's deploy_access_levels accept.
DEPLOY_LEVELS: Final = (AccessLevel.DEVELOPER, AccessLevel.MAINTAINER, AccessLevel.ADMIN)


class AccessLevelError(ValueError):
    """Text or a number that is not a GitLab access level."""


def _key(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


_BY_NAME: Final[dict[str, AccessLevel]] = {
    **{_key(label): level for level, label in _LABELS.items()},
    **{_key(level.name): level for level in AccessLevel},
    "none": AccessLevel.NO_ACCESS,
    "minimal": AccessLevel.MINIMAL_ACCESS,
    "administrator": AccessLevel.ADMIN,
}


def parse_access_level(value: str | int) -> AccessLevel:
    """The access level named or numbered by `value`: `30`, `"30"`, `"developer"`, `"Minimal access"`,
    `"no_access"`. Raises `AccessLevelError` for anything else."""
    if isinstance(value, bool):
        raise AccessLevelError(f"not an access level: {value!r}")
    if isinstance(value, int):
        try:
            return AccessLevel(value)
        except ValueError:
            raise AccessLevelError(_unknown(str(value))) from None
    text = value.strip()
    number = parse_digits(text)
    if number is not None:
        return parse_access_level(number)
    level = _BY_NAME.get(_key(text))
    if level is None:
        raise AccessLevelError(_unknown(text))
    return level


def _unknown(text: str) -> str:
    choices = ", ".join(f"{int(level)} {level.label}" for level in AccessLevel)
    return f"unknown access level {text!r}; use one of: {choices}"
