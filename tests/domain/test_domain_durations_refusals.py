"""Durations that must be refused rather than guessed (issue 14): malformed numbers, a unit given twice, a
bare number after the units, and values past GitLab's 32-bit columns; and everything accepted is bounded."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.durations import (
    MAX_SECONDS,
    DurationError,
    format_duration,
    parse_calendar_duration,
    parse_duration,
)

WORK_UNITS = ("mo", "w", "d", "h", "m", "s")


@pytest.mark.parametrize("text", ["1.5.5h", "1h1h", "1w 2d 3h 30m 5", "99999999w", "1h 2h", "3h30 5",
                                  "1..5h", "2 3h", "1h 60minutes 1m"])
def test_refused(text: str) -> None:
    with pytest.raises(DurationError):
        parse_duration(text)


@pytest.mark.parametrize("text", ["1.5.5d", "1d1d", "1w 5", "99999999y"])
def test_refused_as_older_than(text: str) -> None:
    with pytest.raises(DurationError):
        parse_calendar_duration(text)


def test_messages_say_what_is_wrong() -> None:
    with pytest.raises(DurationError, match=r"malformed number '1\.5\.5'"):
        parse_duration("1.5.5h")
    with pytest.raises(DurationError, match="hours given twice"):
        parse_duration("1h1h")
    with pytest.raises(DurationError, match="'5' has no unit"):
        parse_duration("1w 2d 3h 30m 5")
    with pytest.raises(DurationError, match="too long"):
        parse_duration("99999999w")


@given(st.sampled_from(WORK_UNITS), st.integers(1, 50), st.integers(1, 50))
def test_a_unit_given_twice_is_refused(unit: str, a: int, b: int) -> None:
    with pytest.raises(DurationError, match="given twice"):
        parse_duration(f"{a}{unit} {b}{unit}")


@given(st.lists(st.integers(0, 99), min_size=3, max_size=4), st.sampled_from(WORK_UNITS))
def test_a_number_with_several_dots_is_refused(parts: list[int], unit: str) -> None:
    with pytest.raises(DurationError, match="malformed number"):
        parse_duration(".".join(map(str, parts)) + unit)


@given(st.lists(st.sampled_from(WORK_UNITS), min_size=1, max_size=6, unique=True), st.integers(1, 9))
def test_a_bare_number_after_spaced_units_is_refused(units: list[str], bare: int) -> None:
    text = " ".join(f"1{unit}" for unit in units) + f" {bare}"
    with pytest.raises(DurationError, match="has no unit"):
        parse_duration(text)


@given(st.text(alphabet="0123456789.hmdwos ,-", max_size=16))
def test_whatever_is_accepted_is_bounded(text: str) -> None:
    try:
        seconds = parse_duration(text)
    except DurationError:
        return
    assert abs(seconds) <= MAX_SECONDS


@given(st.integers(-MAX_SECONDS, MAX_SECONDS))
def test_every_value_in_bounds_reads_back(seconds: int) -> None:
    assert parse_duration(format_duration(seconds)) == seconds
