"""Human durations as GitLab reads and writes them.

Two flavours exist in GitLab and they must not be mixed up:

- **Time tracking** (`/estimate`, `/spend`, the `time_estimate` and `add_spent_time` endpoints): working
  time, where `1mo = 4w`, `1w = 5d`, `1d = 8h`. Input such as `1mo 2w 3d 4h 5m`, `3h30m`, `90m`, `1.5h`
  or a bare `3` (hours); a leading `-` subtracts spent time. Output is GitLab's short human form
  (`3h 30m`, `1w 2d`), the form of `human_time_estimate` and `human_total_time_spent`.
- **Calendar** durations (the registry's `older_than`): `1d = 24h`, `1w = 7d`, `1month = 30d`,
  `1y = 365.25d`; a bare number is seconds, as GitLab's ChronicDuration defaults.

Both parsers accept the unit spellings GitLab's ChronicDuration knows (`h`, `hr`, `hrs`, `hour`, `hours`,
...), numbers written with or without a space before the unit, and a unitless number written right after
an explicit unit meaning the next smaller unit (`3h30` is `3h 30m`). Where GitLab refuses (an unknown
word) they refuse too; where ChronicDuration would silently guess, they refuse rather than send a value
the operator did not mean: a malformed number (`1.5.5h`: GitLab reads `.5h` and drops `1.5`), a unit given
twice (`1h1h`), a bare number after the units (`1w 2d 3h 30m 5`: GitLab adds 5 hours), and a value above
`MAX_SECONDS` (GitLab keeps time in a 32-bit integer column). Anything refused raises `DurationError` with
a message that says what was wrong. Fractions are rounded to whole seconds.
"""

from __future__ import annotations

import re
from typing import Final

MINUTE: Final = 60
MAX_SECONDS: Final = 2**31 - 1  # GitLab's integer columns (time_estimate, time_spent); about 68 years
HOUR: Final = 60 * MINUTE

# Time tracking ("working") units.
WORK_DAY: Final = 8 * HOUR
WORK_WEEK: Final = 5 * WORK_DAY
WORK_MONTH: Final = 4 * WORK_WEEK

# Calendar units (registry older_than).
CAL_DAY: Final = 24 * HOUR
CAL_WEEK: Final = 7 * CAL_DAY
CAL_MONTH: Final = 30 * CAL_DAY
CAL_YEAR: Final = 31_557_600  # 365.25 days, as GitLab's ChronicDuration

# Canonical unit names, smallest first (the order "next smaller unit" uses).
_UNIT_ORDER: Final = ("seconds", "minutes", "hours", "days", "weeks", "months", "years")

_SPELLINGS: Final[dict[str, str]] = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "seconds"),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), "minutes"),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), "hours"),
    **dict.fromkeys(("d", "dy", "day", "days"), "days"),
    **dict.fromkeys(("w", "wk", "wks", "week", "weeks"), "weeks"),
    **dict.fromkeys(("mo", "mos", "month", "months"), "months"),
    **dict.fromkeys(("y", "yr", "yrs", "year", "years"), "years"),
}

_WORK_SECONDS: Final[dict[str, int]] = {
    "seconds": 1,
    "minutes": MINUTE,
    "hours": HOUR,
    "days": WORK_DAY,
    "weeks": WORK_WEEK,
    "months": WORK_MONTH,
}

_CALENDAR_SECONDS: Final[dict[str, int]] = {
    "seconds": 1,
    "minutes": MINUTE,
    "hours": HOUR,
    "days": CAL_DAY,
    "weeks": CAL_WEEK,
    "months": CAL_MONTH,
    "years": CAL_YEAR,
}

# One component: a number, optional spaces, an optional unit word; separated by spaces or commas.
_COMPONENT = re.compile(r"\s*(?P<num>[0-9.]+)\s*(?P<unit>[a-z]+)?\s*(?:,|\band\b)?", re.ASCII)
_NUMBER = re.compile(r"\d+(?:\.\d+)?|\.\d+", re.ASCII)

# Short output form, largest first.
_WORK_OUTPUT: Final = (("mo", WORK_MONTH), ("w", WORK_WEEK), ("d", WORK_DAY), ("h", HOUR), ("m", MINUTE),
                       ("s", 1))


class DurationError(ValueError):
    """A duration text that cannot be read."""


def _parse(text: str, table: dict[str, int], default_unit: str, what: str) -> float:
    source = text.strip().lower()
    if not source:
        raise DurationError(f"empty {what}")
    total = 0.0
    last_unit: str | None = None
    last_unit_end = -1  # where the previous unit word ended (a bare number must follow it directly)
    seen: set[str] = set()
    pos = 0
    quoted = repr(text.strip())
    while pos < len(source):
        match = _COMPONENT.match(source, pos)
        if match is None or match.end() == pos:
            rest = source[pos:].strip()
            raise DurationError(f"cannot read {rest!r} in {what} {text.strip()!r}: expected a number "
                                f"and a unit such as {_examples(table)}")
        number = match.group("num")
        if not _NUMBER.fullmatch(number):
            raise DurationError(f"malformed number {number!r} in {what} {quoted}")
        word = match.group("unit")
        if word is not None:
            unit = _SPELLINGS.get(word)
            if unit is None or unit not in table:
                raise DurationError(f"unknown unit {word!r} in {what} {text.strip()!r}; "
                                    f"use {_examples(table)}")
            last_unit = unit
        elif last_unit is None:
            if match.end() < len(source):
                raise DurationError(f"{number!r} has no unit in {what} {quoted}: give it one "
                                    f"({_examples(table)})")
            unit = default_unit
        else:
            index = _UNIT_ORDER.index(last_unit)
            unit = _UNIT_ORDER[index - 1] if index > 0 else last_unit
            if match.start("num") != last_unit_end or index == 0:
                raise DurationError(f"{number!r} has no unit in {what} {quoted}: write its unit "
                                    f"(a number right after a unit, as in 3h30, means the next smaller one)")
            last_unit = unit
        if unit in seen:
            raise DurationError(f"{unit} given twice in {what} {quoted}")
        seen.add(unit)
        last_unit_end = match.end("unit") if word is not None else -1
        total += float(number) * table[unit]
        if total > MAX_SECONDS:
            raise DurationError(f"{what} {quoted} is too long (at most {MAX_SECONDS:,} seconds)")
        pos = match.end()
    return total



def _examples(table: dict[str, int]) -> str:
    if "years" in table:
        return "s, m, h, d, w, month, y (e.g. 90d, 2h, 1month)"
    return "mo, w, d, h, m, s (e.g. 1w 2d, 3h30m, 1.5h)"


def parse_duration(text: str) -> int:
    """Seconds of a time-tracking duration (`1mo 2w 3d 4h 5m`, `3h30m`, `1.5h`, `-1h`; bare number = hours).

    A leading `-` makes the result negative (subtracting spent time). Raises `DurationError`.
    """
    source = text.strip()
    sign = 1
    if source.startswith("-"):
        sign, source = -1, source[1:]
    return sign * round(_parse(source, _WORK_SECONDS, "hours", "duration"))


def format_duration(seconds: int) -> str:
    """GitLab's short human form of a time-tracking duration: `3h 30m`, `1w 2d`, `-1h`; `0m` for zero."""
    if seconds == 0:
        return "0m"
    if seconds < 0:
        return "-" + format_duration(-seconds)
    parts = []
    rest = seconds
    for suffix, size in _WORK_OUTPUT:
        count, rest = divmod(rest, size)
        if count:
            parts.append(f"{count}{suffix}")
    return " ".join(parts)


def human_time(seconds: int) -> str | None:
    """The value of GitLab's `human_time_estimate` / `human_total_time_spent`: `None` when zero."""
    return None if seconds == 0 else format_duration(seconds)


def parse_calendar_duration(text: str) -> int:
    """Seconds of a calendar duration as the registry's `older_than` reads it (`90d`, `2h`, `1month`).

    `1d = 24h`, `1w = 7d`, `1month = 30d`, `1y = 365.25d`; a bare number is seconds. The result must be
    positive. Raises `DurationError`.
    """
    seconds = round(_parse(text, _CALENDAR_SECONDS, "seconds", "older_than duration"))
    if seconds <= 0:
        raise DurationError(f"older_than duration {text.strip()!r} must be greater than zero")
    return seconds
