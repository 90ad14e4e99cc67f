"""Issue 24: a bulk action's confirmation names who or what it acts on, once, in `tui/bulk.py`: the names the
results will use, in their visible form and as literal text, the first few then "and N more", and those it
skips with why. The Pilot assertions on each area's confirmation live in its own tests (users, issues,
registry); these are the rules of the one place."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.tui.bulk import TARGETS_SHOWN, BulkAction, targets_message, targets_text


async def _ok(_row: str) -> tuple[bool, str]:
    return True, ""


def test_a_long_list_shows_the_first_names_and_how_many_more() -> None:
    names = [f"user{i}" for i in range(TARGETS_SHOWN + 3)]
    text = targets_text(names)
    assert text == ", ".join(names[:TARGETS_SHOWN]) + " and 3 more"
    assert targets_text(["alice", "bob"]) == "alice, bob"


def test_names_are_shown_in_their_visible_form_and_never_as_markup() -> None:
    text = targets_text(["alice\u202e", "[@click=app.quit]x[/]", "bob\x1b]52;c;aGk=\x07"])
    assert "\u202e" not in text and "\x1b" not in text and "alice<U+202E>" in text
    message = targets_message(BulkAction("t", ["[b]mallory[/b]"], str, _ok, noun="user"))
    assert message.plain == "1 user: [b]mallory[/b]" and not message.spans


def test_skipped_rows_are_not_among_the_targets_and_say_why() -> None:
    action = BulkAction("Ban 3 users", ["root", "alice", "bob"], str, _ok, noun="user",
                        skip=lambda name: "your own account" if name == "root" else None)
    assert targets_message(action).plain == "2 users: alice, bob\nskipped: root (your own account)"


@given(st.lists(st.text(max_size=12), max_size=40))
def test_every_name_or_the_count_of_the_rest_is_said(names: list[str]) -> None:
    text = targets_text(names)
    shown = names[:TARGETS_SHOWN]
    assert text.count(", ") >= max(len(shown) - 1, 0)
    assert text.endswith(f" and {len(names) - len(shown)} more") == (len(names) > TARGETS_SHOWN)
