"""Access levels: numbers, names, parsing either."""

from __future__ import annotations

import pytest

from labdeck.domain.access_levels import (
    DEPLOY_LEVELS,
    PROJECT_MEMBER_LEVELS,
    AccessLevel,
    AccessLevelError,
    parse_access_level,
)


def test_values_and_labels() -> None:
    assert [(int(level), level.label) for level in AccessLevel] == [
        (0, "No access"), (5, "Minimal access"), (10, "Guest"), (15, "Planner"), (20, "Reporter"),
        (30, "Developer"), (40, "Maintainer"), (50, "Owner"), (60, "Admin"),
    ]


@pytest.mark.parametrize(
    ("value", "level"),
    [
        (30, AccessLevel.DEVELOPER),
        ("30", AccessLevel.DEVELOPER),
        (" 40 ", AccessLevel.MAINTAINER),
        ("developer", AccessLevel.DEVELOPER),
        ("Minimal access", AccessLevel.MINIMAL_ACCESS),
        ("minimal_access", AccessLevel.MINIMAL_ACCESS),
        ("NO_ACCESS", AccessLevel.NO_ACCESS),
        ("planner", AccessLevel.PLANNER),
        ("Admin", AccessLevel.ADMIN),
        ("owner", AccessLevel.OWNER),
    ],
)
def test_parse(value: str | int, level: AccessLevel) -> None:
    assert parse_access_level(value) is level


@pytest.mark.parametrize("value", [25, "25", "superuser", "", True, -1])
def test_parse_rejects_unknown(value: str | int) -> None:
    with pytest.raises(AccessLevelError):
        parse_access_level(value)


def test_level_sets() -> None:
    assert AccessLevel.OWNER not in PROJECT_MEMBER_LEVELS
    assert AccessLevel.ADMIN not in PROJECT_MEMBER_LEVELS
    assert DEPLOY_LEVELS == (AccessLevel.DEVELOPER, AccessLevel.MAINTAINER, AccessLevel.ADMIN)
    assert str(AccessLevel.REPORTER) == "Reporter"
