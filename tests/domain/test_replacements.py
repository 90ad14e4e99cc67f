"""What a change replaces, in words (issue 33): said before the change is confirmed, from one helper."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.replacements import replaced_text


def test_an_assign_over_issues_assigned_to_bob_says_it_replaces_bob() -> None:
    assert replaced_text([["bob"], ["bob"], ["bob"]], ["alice"], noun="issue") == "replaces bob on 3 issues"


def test_targets_that_lose_nothing_are_not_counted_and_groups_come_most_first() -> None:
    befores = [["bob"], ["alice"], [], ["carol", "bob"], ["bob"]]
    assert replaced_text(befores, ["alice"], noun="issue") == (
        "replaces bob on 2 issues, carol and bob on 1 issue")


def test_nothing_replaced_says_nothing() -> None:
    assert replaced_text([["alice"], []], ["alice"], noun="issue") == ""
    assert replaced_text([], ["alice"]) == ""


def test_one_target_names_what_goes_and_a_whole_set_says_what_comes() -> None:
    assert replaced_text([["Developer (30)"]], ["Maintainer (40)"]) == "replaces Developer (30)"
    assert replaced_text([["Maintainers", "alice"]], ["Maintainers"], whole=True) == (
        "replaces Maintainers and alice with Maintainers")
    assert replaced_text([["Maintainers"]], ["Maintainers", "bob"], whole=True) == (
        "replaces Maintainers with Maintainers and bob")
    assert replaced_text([["Maintainers"]], [], whole=True) == "replaces Maintainers with nothing"
    assert replaced_text([["Maintainers"]], ["Maintainers"], whole=True) == ""


def test_names_are_shown_in_their_visible_form_and_compared_without_case() -> None:
    assert replaced_text([["bob\u202e"]], ["alice"]) == "replaces bob<U+202E>"
    assert replaced_text([["Bob"]], ["bob"]) == ""  # GitLab's usernames are not case-sensitive


def test_a_long_list_of_groups_is_cut_with_how_many_more() -> None:
    befores = [[f"user{n}"] for n in range(8)]
    assert replaced_text(befores, ["alice"], noun="issue") == (
        "replaces user0 on 1 issue, user1 on 1 issue, user2 on 1 issue and 5 more")


@given(st.lists(st.lists(st.sampled_from(["alice", "bob", "carol"]), max_size=3, unique=True), max_size=12),
       st.lists(st.sampled_from(["alice", "bob", "carol"]), max_size=3, unique=True))
def test_it_speaks_exactly_when_a_target_loses_something(befores: list[list[str]], after: list[str]) -> None:
    losing = [before for before in befores if set(before) - set(after)]
    said = replaced_text(befores, after, noun="issue")
    assert bool(said) == bool(losing)
    if losing and len({tuple(sorted(set(b) - set(after))) for b in losing}) <= 3:
        assert sum(int(n) for n in re.findall(r" on (\d+) issues?\b", said)) == len(losing)
