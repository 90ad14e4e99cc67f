"""Time-tracking and calendar durations as GitLab reads and writes them."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.durations import (
    CAL_DAY,
    CAL_MONTH,
    CAL_WEEK,
    DurationError,
    format_duration,
    human_time,
    parse_calendar_duration,
    parse_duration,
)

H = 3600
M = 60


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1mo 2w 3d 4h 5m", 160 * H + 2 * 40 * H + 3 * 8 * H + 4 * H + 5 * M),
        ("3h30m", 3 * H + 30 * M),
        ("3h 30m", 3 * H + 30 * M),
        ("90m", 90 * M),
        ("1.5h", 90 * M),
        (".5h", 30 * M),
        ("3", 3 * H),  # a bare number is hours
        ("3h30", 3 * H + 30 * M),  # a unitless number after a unit is the next smaller unit
        ("1d", 8 * H),
        ("1w", 5 * 8 * H),
        ("1mo", 4 * 5 * 8 * H),
        ("2 hours 10 minutes", 2 * H + 10 * M),
        ("1h, 30m", H + 30 * M),
        ("1H 2M", H + 2 * M),
        ("45s", 45),
        ("-1h", -H),
        ("-1h 30m", -(H + 30 * M)),
        ("0h", 0),
    ],
)
def test_parse_duration(text: str, seconds: int) -> None:
    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "   ", "h", "3x", "1y", "1h -30m", "abc", "1.h", "--1h", "3h!"])
def test_parse_duration_rejects_bad_input(text: str) -> None:
    with pytest.raises(DurationError):
        parse_duration(text)


def test_duration_error_names_the_unit() -> None:
    with pytest.raises(DurationError, match="unknown unit 'x'"):
        parse_duration("3x")


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (3 * H + 30 * M, "3h 30m"),
        (5 * 8 * H + 2 * 8 * H, "1w 2d"),
        (8 * H, "1d"),
        (160 * H, "1mo"),
        (12600, "3h 30m"),
        (61, "1m 1s"),
        (0, "0m"),
        (-H, "-1h"),
        (4 * 160 * H + 5 * M, "4mo 5m"),
    ],
)
def test_format_duration(seconds: int, text: str) -> None:
    assert format_duration(seconds) == text


def test_human_time_is_none_for_zero() -> None:
    assert human_time(0) is None
    assert human_time(12600) == "3h 30m"


@given(st.integers(min_value=-(10**9), max_value=10**9))
def test_format_parse_round_trip(seconds: int) -> None:
    assert parse_duration(format_duration(seconds)) == seconds


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("1d", CAL_DAY),
        ("90d", 90 * CAL_DAY),
        ("1w", 7 * CAL_DAY),
        ("1month", 30 * CAL_DAY),
        ("2months", 2 * CAL_MONTH),
        ("2h", 2 * H),
        ("30m", 30 * M),  # m is minutes, as in GitLab
        ("1 day", CAL_DAY),
        ("1y", 31_557_600),
        ("30", 30),  # a bare number is seconds
        ("1w 1d", CAL_WEEK + CAL_DAY),
    ],
)
def test_parse_calendar_duration(text: str, seconds: int) -> None:
    assert parse_calendar_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "0d", "-1d", "1 fortnight", "soon"])
def test_parse_calendar_duration_rejects_bad_input(text: str) -> None:
    with pytest.raises(DurationError):
        parse_calendar_duration(text)


def test_calendar_and_working_days_differ() -> None:
    assert parse_calendar_duration("1d") == 3 * parse_duration("1d")
