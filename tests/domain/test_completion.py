"""Completion slots: the name typed in a filter, a list or a path, and how a chosen one goes back."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from labdeck.domain.completion import (
    Named,
    Slot,
    best,
    filter_slot,
    ghost,
    list_slot,
    names_in,
    path_slot,
    splice,
    unknown_text,
)
from labdeck.domain.issue_query import parse


@pytest.mark.parametrize(("text", "kind", "prefix"), [
    ("label:bu", "label", "bu"),
    ("state:opened label:bu", "label", "bu"),
    ("-label:wo", "label", "wo"),
    ("assignee:al", "user", "al"),
    ("assignee:@al", "user", "al"),
    ("author:", "user", ""),
    ('milestone:"v1', "milestone", "v1"),
    ('milestone:"v 1', "milestone", "v 1"),
    ("LABEL:bu", "label", "bu"),
])
def test_filter_slot_at_the_end(text: str, kind: str, prefix: str) -> None:
    slot = filter_slot(text)
    assert slot is not None
    assert (slot.kind, slot.prefix, slot.end) == (kind, prefix, len(text))


@pytest.mark.parametrize("text", ["", "label:bug ", "bug", '"free text', "state:op", "created>2024",
                                  "label", 'milestone:"v1.0"', "iid:1"])
def test_no_filter_slot(text: str) -> None:
    assert filter_slot(text) is None


def test_filter_slot_in_the_middle_replaces_the_whole_value() -> None:
    text = "label:bug state:opened"
    slot = filter_slot(text, cursor=8)  # after `label:bu`
    assert slot is not None and slot.prefix == "bu" and (slot.start, slot.end) == (6, 9)
    assert splice(text, slot, "build", "filter") == ("label:build state:opened", 11)


def test_splice_quotes_a_name_the_filter_language_needs_quoted() -> None:
    text = "state:opened label:goo"
    slot = filter_slot(text)
    assert slot is not None
    new, cursor = splice(text, slot, "good first issue", "filter")
    assert new == 'state:opened label:"good first issue"' and cursor == len(new)
    assert parse(new).terms[1].value == "good first issue"


def test_ghost_extends_the_typed_text_and_accepting_quotes_it() -> None:
    text = "label:goo"
    slot = filter_slot(text)
    assert slot is not None
    shown = ghost(text, slot, "good first issue", "filter")
    assert shown is not None
    assert shown.shown == "label:good first issue"  # drawn after what was typed
    assert shown.accepted == 'label:"good first issue"'


def test_ghost_in_an_opened_quote_closes_it() -> None:
    text = 'milestone:"v1'
    slot = filter_slot(text)
    assert slot is not None
    shown = ghost(text, slot, "v1.0", "filter")
    assert shown is not None and shown.shown == shown.accepted == 'milestone:"v1.0"'


def test_ghost_only_at_the_end_and_only_for_a_completing_name() -> None:
    text = "label:bu state:opened"
    slot = filter_slot(text, cursor=8)
    assert slot is not None and ghost(text, slot, "bug", "filter") is None
    slot = filter_slot("label:bu")
    assert slot is not None and ghost("label:bu", slot, "feature", "filter") is None


def test_user_at_sign_is_kept() -> None:
    slot = filter_slot("assignee:@al")
    assert slot is not None
    assert splice("assignee:@al", slot, "alice", "filter") == ("assignee:@alice", 15)


def test_list_slot_takes_the_item_under_the_cursor() -> None:
    slot = list_slot("bug, fea", "label")
    assert slot == Slot("label", "fea", 5, 8)
    assert splice("bug, fea", slot, "feature") == ("bug, feature", 12)
    middle = list_slot("bug, fea, ux", "label", cursor=8)
    assert middle is not None and middle.prefix == "fea"
    assert splice("bug, fea, ux", middle, "feature") == ("bug, feature, ux", 12)
    user = list_slot("alice, @bo", "user")
    assert user is not None and user.prefix == "bo"
    assert splice("alice, @bo", user, "bob")[0] == "alice, @bob"


def test_list_ghost_keeps_names_with_spaces_unquoted() -> None:
    slot = list_slot("bug, goo", "label")
    assert slot is not None
    shown = ghost("bug, goo", slot, "good first issue", "list")
    assert shown is not None and shown.accepted == shown.shown == "bug, good first issue"


def test_path_slot() -> None:
    assert path_slot("") is None and path_slot("   ") is None
    slot = path_slot("acme/pla")
    assert slot is not None and slot.prefix == "acme/pla" and slot.kind == "path"
    shown = ghost("acme/pla", slot, "acme/platform/api-gateway")
    assert shown is not None and shown.accepted == "acme/platform/api-gateway"


def test_best_prefers_order_and_skips_names_that_add_nothing() -> None:
    assert best("bu", ["feature", "bug", "build"]) == "bug"
    assert best("bug", ["bug", "bugfix"]) == "bugfix"
    assert best("BU", ["bug"]) == "bug"
    assert best("x", ["bug"]) is None


def test_names_in_a_filter() -> None:
    query = parse('label:bug -label:"won fix" assignee:@nosuchuser author:alice milestone:none '
                  'milestone:upcoming assignee:any label:bug state:opened')
    assert names_in(query) == [Named("label", "bug", "label:bug"),
                               Named("label", "won fix", '-label:"won fix"'),
                               Named("user", "nosuchuser", "assignee:@nosuchuser"),
                               Named("user", "alice", "author:alice")]


def test_unknown_text() -> None:
    text = unknown_text([Named("user", "nosuchuser", "assignee:nosuchuser"),
                         Named("label", "bgu", "label:bgu")], "acme")
    assert text == "no user called nosuchuser; no label called bgu in acme: no issue can match"
    assert unknown_text([Named("label", "x", "-label:x")], "acme").endswith("check the name")


_NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=20).filter(
    lambda s: s.strip() == s and "," not in s)
_PLAIN = st.characters(blacklist_categories=("Cs", "Cc", "Zs"), blacklist_characters='"\\,')


@given(name=_NAME, cut=st.integers(0, 20), key=st.sampled_from(["label", "milestone", "assignee"]),
       before=st.sampled_from(["", "state:opened ", '"free text" ']))
def test_spliced_filter_reads_back_as_the_name(name: str, cut: int, key: str, before: str) -> None:
    prefix = "".join(ch for ch in name[:cut] if ch not in '"\\' and not ch.isspace())
    # a username never holds `@` (GitLab's rule): `assignee:@al` is the `@al` way of writing `al`
    assume(not (key == "assignee" and "@" in name))
    for typed in (f"{before}{key}:{prefix}", f'{before}{key}:"{prefix}'):
        slot = filter_slot(typed)
        assert slot is not None and slot.prefix == prefix
        new, cursor = splice(typed, slot, name, "filter")
        assert cursor == len(new)
        term = parse(new).terms[-1]
        assert (term.key, term.value) == (key, name)
        shown = ghost(typed, slot, name if name.startswith(prefix) else prefix + name, "filter")
        if shown is not None:
            assert shown.shown.startswith(typed)
            assert shown.accepted == splice(typed, slot, name if name.startswith(prefix) else prefix + name,
                                            "filter")[0]


@given(items=st.lists(st.text(_PLAIN, min_size=1, max_size=8), min_size=1, max_size=4), name=_NAME,
       index=st.integers(0, 3))
def test_list_splice_replaces_only_the_item_under_the_cursor(items: list[str], name: str, index: int) -> None:
    index = min(index, len(items) - 1)
    text = ", ".join(items)
    cursor = sum(len(item) + 2 for item in items[:index]) + len(items[index])
    slot = list_slot(text, "label", cursor)
    assert slot is not None and slot.prefix == items[index]
    new, _ = splice(text, slot, name)
    expected = [*items[:index], name, *items[index + 1:]]
    assert new.split(", ") == expected or "," in name
