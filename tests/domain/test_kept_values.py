"""`domain.kept_values`: an editor never changes a value the operator did not change. The choices always
hold the stored value (as it is, noted when unknown), an untouched field reads back as loaded, and only
what differs is sent."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.kept_values import UNKNOWN_NOTE, as_loaded, changed, kept_choices, shown

KNOWN = [("none", "none"), ("7d", "7d"), ("14d", "14d")]


def test_a_stored_value_the_choices_lack_is_shown_as_it_is_and_chosen() -> None:
    assert kept_choices(KNOWN, "14d") == KNOWN
    assert kept_choices(KNOWN, "45d") == [*KNOWN, (f"45d ({UNKNOWN_NOTE})", "45d")]
    assert shown("60d", ("60d",)) == "60d" and shown(3, (1, 5)) == "3 (not a value labdeck knows)"
    assert shown("", ("1d",)) == "(blank) (not a value labdeck knows)"


@given(st.lists(st.text(max_size=5), max_size=6, unique=True), st.text(max_size=5))
def test_the_choices_always_hold_the_stored_value_once(values: list[str], loaded: str) -> None:
    choices = kept_choices([(v, v) for v in values], loaded)
    assert [v for _label, v in choices].count(loaded) == 1
    assert choices[:len(values)] == [(v, v) for v in values]  # what labdeck offers, in its order


def test_an_untouched_field_is_the_value_loaded() -> None:
    assert as_loaded("", "", None, lambda text: text) is None  # an empty field was null: still null
    assert as_loaded("x", "", None, lambda text: text) == "x"


@given(st.dictionaries(st.sampled_from("abcde"), st.integers(0, 3)),
       st.dictionaries(st.sampled_from("abcde"), st.integers(0, 3)))
def test_only_what_differs_is_sent(loaded: dict[str, int], edited: dict[str, int]) -> None:
    sent = changed(loaded, edited)
    assert {**loaded, **sent} == {**loaded, **edited}  # applied to what was loaded, it gives the edit
    assert all(name not in loaded or loaded[name] != value for name, value in sent.items())
