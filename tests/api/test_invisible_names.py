"""A username holding a bidi control or a zero-width character reaches the screens in its visible form,
through the fast listing decoder (page bytes, raw UTF-8 or `\\u` escapes) as through the tolerant path and
single objects: `alice` + U+202E + `nimda` cannot pass for another user in a list."""

from __future__ import annotations

import json

import pytest

from labdeck.api.body import clean_items
from labdeck.api.models.base import parse_many
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.api.models.issues import Issue
from labdeck.api.models.moderation import ModeratedUser

HIDDEN = ["\u202e", "\u2066", "\u200b", "\u200d", "\u2060", "\ufeff"]


def _users(name: str) -> list[dict[str, object]]:
    return [{"id": 1, "username": name, "name": f"Name {name}", "state": "active"},
            {"id": 2, "username": "bob", "name": "Bob", "state": "active"}]


@pytest.mark.parametrize("hidden", HIDDEN)
@pytest.mark.parametrize("ensure_ascii", [True, False])
def test_the_fast_listing_decoder_shows_hidden_characters(hidden: str, ensure_ascii: bool) -> None:
    body = json.dumps(_users(f"alice{hidden}nimda"), ensure_ascii=ensure_ascii).encode()
    decoder = fast_decoder(ModeratedUser)
    assert decoder is not None
    rows = decoder.decode(body)
    assert rows is not None
    shown = f"alice<U+{ord(hidden):04X}>nimda"
    assert rows[0].username == shown and rows[0].name == f"Name {shown}" and rows[1].username == "bob"
    tolerant = parse_many(ModeratedUser, clean_items(body, "GET /users"), sanitised=True)
    assert tolerant[0].username == shown


def test_shared_parts_of_an_issue_listing_are_shown_too() -> None:
    author = {"id": 5, "username": "ro\u202eot", "name": "R", "state": "active"}
    items = [{"id": n, "iid": n, "project_id": 1, "title": f"t\u200b{n}", "author": author,
              "assignees": [author], "state": "opened"} for n in range(3)]
    decoder = fast_decoder(Issue, names_as={"labels": "name"})
    assert decoder is not None
    rows = decoder.decode(json.dumps(items, ensure_ascii=False).encode())
    assert rows is not None
    assert {r.author.username for r in rows} == {"ro<U+202E>ot"} and rows[0].title == "t<U+200B>0"
    assert rows[0].assignees[0].username == "ro<U+202E>ot"


def test_a_single_user_is_shown_too() -> None:
    user = ModeratedUser.model_validate({"id": 1, "username": "ali\u2067ce", "state": "active"})
    assert user.username == "ali<U+2067>ce"


@pytest.mark.parametrize("hidden", ["\u2063", "\u061c", "\U000e0062", "\u3164", "\u115f", "\u00ad", "\ufe0f"])
def test_two_labels_that_differ_by_a_format_character_differ_on_screen(hidden: str) -> None:
    """Issue 32 item 9: `bug` and `bug` + U+2063 (or a tag character, a Hangul filler, ...) looked the same
    in a list; at the model boundary the second is `bug<U+2063>`, through every way a listing is read."""
    from labdeck.api.models.labels import GroupLabel

    items = [{"id": 1, "name": "bug", "color": "#f00"}, {"id": 2, "name": f"bug{hidden}", "color": "#f00"}]
    shown = f"bug<U+{ord(hidden):04X}>"
    for ensure_ascii in (True, False):
        body = json.dumps(items, ensure_ascii=ensure_ascii).encode()
        labels = parse_many(GroupLabel, clean_items(body, "GET /groups/1/labels"), sanitised=True)
        assert [label.name for label in labels] == ["bug", shown]
    assert GroupLabel.model_validate(items[1]).name == shown
    decoder = fast_decoder(ModeratedUser)
    assert decoder is not None
    rows = decoder.decode(json.dumps(_users(f"bug{hidden}"), ensure_ascii=False).encode())
    assert rows is not None and rows[0].username == shown
