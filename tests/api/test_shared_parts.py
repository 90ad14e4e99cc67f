"""Issue parts shared across a listing (`SharedParts`): the same issues as parsing each alone, equal
parts are one object, unequal ones (even 1 against true) stay apart, hostile text is still made visible,
and a wrong shape still names its place."""

from __future__ import annotations

import copy
from typing import Any

from labdeck.api.issues import issue_parts, parse_issue_list
from labdeck.api.models.base import parse_one
from labdeck.api.models.issues import Issue

AUTHOR = {"id": 5, "username": "alice", "name": "Alice", "state": "active"}
LABEL = {"id": 1, "name": "bug", "color": "#f00"}


def issue(n: int, **fields: Any) -> dict[str, Any]:
    return {"id": n, "iid": n, "project_id": 1, "title": f"t{n}", "author": dict(AUTHOR),
            "assignees": [dict(AUTHOR)], "assignee": dict(AUTHOR), "labels": [dict(LABEL), "plain"],
            "milestone": {"id": 3, "title": "v1"}, "created_at": "2026-01-01T00:00:00", **fields}


def test_shared_parse_equals_parsing_each_alone() -> None:
    items = [issue(n) for n in range(1, 6)] + [issue(6, author={**AUTHOR, "name": "Other"})]
    alone = [parse_one(Issue, copy.deepcopy(item)) for item in items]
    shared = parse_issue_list(copy.deepcopy(items))
    assert shared == alone
    assert shared[0].author is shared[1].author is shared[0].assignees[0]
    assert shared[0].labels[0] is shared[4].labels[0] and shared[0].labels[1].name == "plain"
    assert shared[5].author is not shared[0].author and shared[5].author.name == "Other"  # type: ignore[union-attr]
    assert shared[0].model_extra["assignee"] is shared[1].model_extra["assignee"]  # type: ignore[index]
    assert shared[0].created_at is not None and shared[0].created_at.tzinfo is not None


def test_a_table_is_kept_across_pages_and_types_are_not_conflated() -> None:
    parts = issue_parts()
    first = parse_issue_list([issue(1, assignee={"id": 1, "flag": True})], shared=parts)
    second = parse_issue_list([issue(2, assignee={"id": 1, "flag": 1})], shared=parts)
    assert first[0].author is second[0].author
    assert first[0].model_extra["assignee"]["flag"] is True  # type: ignore[index]
    assert second[0].model_extra["assignee"]["flag"] == 1  # type: ignore[index]
    assert type(second[0].model_extra["assignee"]["flag"]) is int  # type: ignore[index]


def test_hostile_text_is_visible_in_shared_parts() -> None:
    items = [issue(n, author={**AUTHOR, "username": "a\x1b[2J"}) for n in range(3)]
    parsed = parse_issue_list(items)
    assert parsed[0].author is parsed[2].author and parsed[0].author.username == "a\u241b[2J"  # type: ignore[union-attr]


def test_a_bad_part_is_read_as_the_item_alone_would_be() -> None:
    """A part that does not validate is left for the item's own (tolerant) reading, which names it."""
    items = [issue(1), issue(2, author={"id": "not a number"})]
    alone = [parse_one(Issue, copy.deepcopy(item)) for item in items]
    shared = parse_issue_list(items)
    assert shared == alone
    assert [i.unreadable for i in shared] == [i.unreadable for i in alone]
    assert "author" in " ".join(shared[1].unreadable)


def test_equal_field_sets_are_shared_and_a_copy_does_not_touch_them() -> None:
    parsed = parse_issue_list([issue(n, references={"full": f"g/p#{n}"}) for n in range(1, 4)])
    first, second = parsed[0], parsed[1]
    assert first.__pydantic_fields_set__ is second.__pydantic_fields_set__
    assert first.references.__pydantic_fields_set__ is second.references.__pydantic_fields_set__  # type: ignore[union-attr]
    before = set(first.__pydantic_fields_set__)
    changed = first.model_copy(update={"weight": 3})
    assert changed.weight == 3 and first.weight is None
    assert second.__pydantic_fields_set__ == before  # the copy has its own set
    assert [i.reference for i in parsed] == ["g/p#1", "g/p#2", "g/p#3"]
