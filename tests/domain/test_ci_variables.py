"""Variable key rules, the instance value limit, masking requirements, and colour names for labels."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.ci_variables import (
    KEY_ALPHABET_ERROR,
    KEY_LENGTH_ERROR,
    can_mask,
    key_errors,
    variable_errors,
)
from labdeck.domain.colours import ColourError, is_colour, normalise_colour, stored_colour, text_colour


@pytest.mark.parametrize("key", ["A", "deploy_TOKEN_2", "_", "x" * 255])
def test_valid_keys(key: str) -> None:
    assert key_errors(key) == []


@pytest.mark.parametrize(("key", "expected"), [
    ("x" * 256, [KEY_LENGTH_ERROR]),
    ("with-dash", [KEY_ALPHABET_ERROR]),
    ("spa ce", [KEY_ALPHABET_ERROR]),
    ("é", [KEY_ALPHABET_ERROR]),
    ("a.b" + "c" * 300, [KEY_LENGTH_ERROR, KEY_ALPHABET_ERROR]),
    ("", ["can't be blank"]),
])
def test_invalid_keys(key: str, expected: list[str]) -> None:
    assert key_errors(key) == expected


def test_instance_value_limit_is_ten_thousand_characters() -> None:
    assert variable_errors("K", "v" * 10_000, instance=True) == {}
    errors = variable_errors("K", "v" * 10_001, instance=True)
    assert errors == {"value": ["The value of the provided variable exceeds the 10000 character limit"]}
    assert variable_errors("K", "v" * 10_001) == {}  # group variables have no such limit


@pytest.mark.parametrize(("value", "ok"), [
    ("abcdefgh", True), ("a+b/c=d@e:f.g~h-_", True), ("short", False), ("has space!", False),
    ("two\nlines!", False),
])
def test_masked_values(value: str, ok: bool) -> None:
    assert can_mask(value) is ok
    assert ("value" in variable_errors("K", value, masked=True)) is (not ok)


@pytest.mark.parametrize(("text", "hex_value"), [
    ("red", "#ff0000"), ("RebeccaPurple", "#663399"), ("#ABC", "#aabbcc"), ("#D9534F", "#d9534f"),
])
def test_colour_names_and_hex(text: str, hex_value: str) -> None:
    assert is_colour(text) and normalise_colour(text) == hex_value


@pytest.mark.parametrize("text", ["#12", "notacolour", "#GGGGGG", ""])
def test_invalid_colours(text: str) -> None:
    assert not is_colour(text)
    with pytest.raises(ColourError):
        normalise_colour(text)


def test_text_colour_contrasts() -> None:
    assert text_colour("white") == "#1F1E24" and text_colour("#000080") == "#FFFFFF"
    # GitLab's rule (Gitlab::Color#light?): r + g + b > 500, not a luminance
    assert text_colour("#FFFF00") == "#1F1E24"  # 510
    assert text_colour("#F5F500") == "#FFFFFF"  # 490
    assert text_colour("#00FFF6") == "#1F1E24"  # 501
    assert text_colour("#00FFF5") == "#FFFFFF"  # 500


@given(st.integers(0, 255), st.integers(0, 255), st.integers(0, 255))
def test_text_colour_is_the_component_sum_rule(red: int, green: int, blue: int) -> None:
    colour = f"#{red:02x}{green:02x}{blue:02X}"
    assert stored_colour(colour) == colour
    assert text_colour(colour) == ("#1F1E24" if red + green + blue > 500 else "#FFFFFF")


def test_stored_colour_keeps_hex_and_maps_names_to_upper_case() -> None:
    assert stored_colour("tomato") == "#FF6347" and stored_colour("RebeccaPurple") == "#663399"
    assert stored_colour(" #abc ") == "#abc" and stored_colour("#AbCdEf") == "#AbCdEf"
    assert stored_colour("#11223344") == "#11223344"
    with pytest.raises(ColourError):
        stored_colour("#12345")


def test_raw_masking_description_and_hidden_rules() -> None:
    from labdeck.domain.ci_variables import HIDDEN_VISIBILITY, hidden_update_error

    assert not can_mask("pa$$word!") and can_mask("pa$$word!", raw=True)
    assert not can_mask("has space", raw=True) and not can_mask("short", raw=True)
    assert variable_errors("K", "v", description="d" * 255) == {}
    assert variable_errors("K", "v", description="d" * 256) == {
        "description": ["is too long (maximum is 255 characters)"]}
    assert variable_errors("K", "abcdefgh12", hidden=True) == {
        "masked": ["should be true when variable is hidden"]}
    assert hidden_update_error(True, True, False) == HIDDEN_VISIBILITY
    assert hidden_update_error(True, True, True) is None and hidden_update_error(False, True, False) is None
