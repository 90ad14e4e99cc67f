"""Digits are ASCII digits (issue 32 item 9): `"²".isdigit()` is true but `int("²")` raises, `int("٣")` is 3;
a number read from untrusted or typed text is `0`-`9` only, through one helper, and anything else is "not a
number", never an exception. The source holds no other digit test (`isdigit`, `isdecimal`, `isnumeric`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.digits import is_digits, parse_digits, parse_integer

SRC = Path(__file__).resolve().parents[2] / "src" / "labdeck"
WIDE_DIGITS = ["²", "³", "¹", "٣", "３", "۷", "०", "𝟗", "⑨", "½", "Ⅻ"]


@given(st.text(max_size=12))
def test_only_ascii_digits_make_a_number(text: str) -> None:
    number, signed = parse_digits(text), parse_integer(text)  # never raises
    ascii_digits = text != "" and all(c in "0123456789" for c in text)
    assert (number is not None) == ascii_digits == is_digits(text)
    if number is not None:
        assert number == int(text) and signed == number
    if signed is not None:
        assert re.fullmatch(r"-?[0-9]+", text) and signed == int(text)


@pytest.mark.parametrize("digit", WIDE_DIGITS)
def test_other_digits_are_not_numbers(digit: str) -> None:
    for text in (digit, f"1{digit}", f"{digit}1", f"-{digit}"):
        assert parse_digits(text) is None and parse_integer(text) is None and not is_digits(text)


def test_what_int_would_take_is_refused_too() -> None:
    for text in (" 1", "1 ", "1_000", "+1", "0x1", "", "-", "1\n"):
        assert parse_digits(text) is None
    assert parse_integer("-12") == -12 and parse_digits("-12") is None
    assert parse_digits("9" * 5000) is None  # `int` would raise: "Exceeds the limit (4300 digits)"
    assert parse_digits("007") == 7


def test_the_source_holds_no_other_digit_test() -> None:
    """Every digit test goes through `domain.digits` (a `str.isdigit()` beside an `int()` ended the app)."""
    found = [f"{path.relative_to(SRC)}:{n}" for path in SRC.rglob("*.py") if path.name != "digits.py"
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\.is(digit|decimal|numeric)\(", line)]
    assert found == []


def test_the_source_reads_no_unicode_digit_class() -> None:
    r"""`\d` in a text pattern matches every script's digits (`re.match(r"\d", "٣")`); text patterns spell
    `[0-9]` (a bytes pattern's `\d` is ASCII already)."""
    found = [f"{path.relative_to(SRC)}:{n}" for path in SRC.rglob("*.py")
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"(?<!b)r\"[^\"]*\\d", line) and "re.ASCII" not in line]
    assert found == []
