"""Digits are ASCII digits: the one reading of a number from untrusted or typed text (a path segment, an id in
a GraphQL global id, a header, a form field, a command-line argument).

Python's own tests are wider than a number GitLab (or a person) means: `"²".isdigit()` is true but `int("²")`
raises; `int("٣")` is 3 and `int("３")` is 3 (other scripts' digits); `int(" 7_0 ")` is 70; and `int` refuses
a string of more than 4,300 digits with a `ValueError`. A check with one and a conversion with the other ended
the app on a pasted superscript digit. Here a number is `0`-`9` only (a minus sign where `signed`), at most
`MAX_DIGITS` long, and anything else is "not a number" (None), never an exception.
"""

from __future__ import annotations

import math
import re
from typing import Final

MAX_DIGITS: Final = 4000  # below `sys.int_info.default_max_str_digits` (4300): `int` never refuses
_DIGITS: Final = re.compile(r"[0-9]+")
_SIGNED: Final = re.compile(r"-?[0-9]+")


def is_digits(text: str) -> bool:
    """True when `text` is one or more ASCII digits and nothing else (no sign, space, underscore)."""
    return _DIGITS.fullmatch(text) is not None


def parse_digits(text: str) -> int | None:
    """The number `text` spells in ASCII digits (`is_digits`), or None: `"12"` -> 12, `"²"`, `"٣"`, `" 1"`,
    `"-1"`, `""` -> None."""
    return int(text) if len(text) <= MAX_DIGITS and is_digits(text) else None


def parse_integer(text: str) -> int | None:
    """`parse_digits` with an optional leading minus sign: `"-3"` -> -3."""
    return int(text) if len(text) <= MAX_DIGITS + 1 and _SIGNED.fullmatch(text) is not None else None


def integer_value(value: object) -> int | None:
    """An integer in decoded JSON or a parameter, as Grape's Integer type reads one: a JSON number (a float
    truncated, as before), or text of ASCII digits with an optional minus and surrounding spaces (Ruby's
    `Integer()`, which refuses `٣` where Python's `int` reads 3); None for anything else (a boolean, `²`,
    `1.5x`, a list, NaN)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else None
    return parse_integer(value.strip()) if isinstance(value, str) else None


def wide_digit(text: str) -> str | None:
    """The first character of `text` that Python counts as a digit or number but that is not one of 0-9
    (`²`, `٣`, `３`, `½`), or None: what a form names when it refuses such a number."""
    return next((c for c in text if not c.isascii() and c.isnumeric()), None)


def wide_digit_problem(text: str) -> str | None:
    """A form's message for `text` holding a `wide_digit` (`"² is not one of the digits 0-9"`), or None."""
    found = wide_digit(text)
    return None if found is None else f"{found} is not one of the digits 0-9"
