"""Tolerant reading keeps every item of a list (issue 15, item 4): properties over lists of items with
wrong-typed fields, placeholders for an id that cannot be read, and the client's refusal to send a request
that names such an item."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.api.errors import MalformedResponse, UnreadableIdentity
from labdeck.api.models.base import ApiModel, parse_many
from labdeck.api.models.issues import Issue
from labdeck.api.models.tolerant import (
    IDENTITY_UNREADABLE,
    NOT_AN_OBJECT,
    identity_unreadable,
    placeholder_in_path,
)
from labdeck.api.models.users import User
from labdeck.api.users import UsersService
from labdeck.domain.moderation import Operation

# characters the sanitiser keeps as sent
TEXT = st.text(st.characters(max_codepoint=0x2FF, exclude_categories=("Cc", "Cf", "Cs")), max_size=8)
DAY = st.dates(date(2000, 1, 1), date(2100, 1, 1)).map(date.isoformat)
INSTANT = st.datetimes(min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(UTC))

# field -> (strategy of a valid JSON value, how the model reads it)
VALID: dict[str, tuple[st.SearchStrategy[Any], Any]] = {
    "id": (st.integers(1, 2**40), int),
    "iid": (st.integers(1, 10**6), int),
    "project_id": (st.integers(1, 10**6), int),
    "username": (TEXT, str),
    "title": (TEXT, str),
    "state": (TEXT, str),
    "is_admin": (st.booleans(), bool),
    "confidential": (st.booleans(), bool),
    "upvotes": (st.integers(0, 1000), int),
    "created_at": (INSTANT.map(lambda d: d.isoformat().replace("+00:00", "Z")), datetime.fromisoformat),
    "last_activity_on": (DAY, date.fromisoformat),
    "due_date": (DAY, date.fromisoformat),
}
FIELDS: dict[type[ApiModel], tuple[str, ...]] = {
    User: ("id", "username", "state", "is_admin", "created_at", "last_activity_on"),
    Issue: ("id", "iid", "project_id", "title", "confidential", "upvotes", "created_at", "due_date"),
}
# a value no scalar field accepts, whatever pydantic's lax conversions (lists and objects)
WRONG = st.one_of(st.lists(st.integers(), max_size=2), st.dictionaries(TEXT, st.integers(), max_size=2))


@st.composite
def items(draw: st.DrawFn, model: type[ApiModel]) -> tuple[dict[str, Any], set[str]]:
    """One item with each field valid, wrong-typed or absent; and the names given a wrong value."""
    item: dict[str, Any] = {}
    wrong: set[str] = set()
    for name in FIELDS[model]:
        kind = draw(st.sampled_from(["valid", "valid", "wrong", "absent"]))
        if kind == "valid":
            item[name] = draw(VALID[name][0])
        elif kind == "wrong":
            item[name] = draw(WRONG)
            wrong.add(name)
    return item, wrong


def _required(model: type[ApiModel]) -> set[str]:
    return {name for name, info in model.model_fields.items() if info.is_required()}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(list(FIELDS)).flatmap(lambda m: st.tuples(st.just(m), st.lists(items(m), max_size=8))))
def test_every_item_is_kept_and_every_readable_field_read(case: tuple[type[ApiModel], list[Any]]) -> None:
    model, drawn = case
    data = [item for item, _ in drawn]
    read = parse_many(model, data)
    assert len(read) == len(data)  # nothing dropped, in order
    for got, (item, wrong) in zip(read, drawn, strict=True):
        for name, value in item.items():
            if name not in wrong:  # every readable field is read, as sent
                assert getattr(got, name) == VALID[name][1](value)
        missing = _required(model) - item.keys()
        assert set(got.unreadable) == wrong | missing  # exactly what could not be read is named
        assert identity_unreadable(got) == bool((wrong | missing) & _required(model))
    placeholders = [got.id for got in read if "id" in got.unreadable]
    assert all(ident < 0 for ident in placeholders) and len(set(placeholders)) == len(placeholders)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.one_of(items(User).map(lambda pair: pair[0]), st.none(), TEXT, st.integers()),
                min_size=1, max_size=8))
def test_elements_that_are_not_objects_stand_as_marked_placeholders(data: list[Any]) -> None:
    if not any(isinstance(element, dict) for element in data):
        with pytest.raises(MalformedResponse):  # not one object: not a list of users at all
            parse_many(User, data)
        return
    read = parse_many(User, data)
    assert len(read) == len(data)
    for got, element in zip(read, data, strict=True):
        if not isinstance(element, dict):
            assert got.unreadable[0] == NOT_AN_OBJECT and identity_unreadable(got) and got.id < 0
    assert len({got.id for got in read if got.id < 0}) == sum(got.id < 0 for got in read)


@pytest.mark.parametrize(("path", "refused"), [
    ("/users/-3/block", True), ("/projects/1/variables/", True), ("/projects//issues", True),
    ("/users/-12", True), ("/users/3/block", False), ("/projects/acme%2F-1/issues", False),
    ("/users?search=-1", False), ("/", False), ("https://gitlab.example/api/v4/users/-1", False),
])
def test_placeholder_in_path(path: str, refused: bool) -> None:
    assert placeholder_in_path(path) is refused


async def test_a_request_naming_a_placeholder_is_refused_before_sending(make_client: Any) -> None:
    sent: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(f"{request.method} {request.url.path}")
        if request.url.path == "/api/v4/users":
            return httpx.Response(200, json=[{"id": 1, "username": "ok"}, {"id": None, "username": "ghost"}])
        return httpx.Response(201, json={})

    client = make_client(handler)
    service = UsersService(client)
    _, ghost = await service.list_users()
    assert ghost.username == "ghost" and identity_unreadable(ghost)
    with pytest.raises(UnreadableIdentity, match=IDENTITY_UNREADABLE):
        await client.request("POST", f"/users/{ghost.id}/block")
    result = await service.try_moderate(ghost.id, Operation.BLOCK, ghost.username)
    assert not result.ok and IDENTITY_UNREADABLE in result.message
    assert sent == ["GET /api/v4/users"]  # nothing about the ghost was sent
