"""Listing pages parsed straight from the bytes (`api/models/fast_lists.py`): every declared field is what
the tolerant path (orjson, sanitising, pydantic) gives for the same page, or the fast path refuses the
page and the tolerant path reads it; control characters are made visible; repeated parts are one object;
plain label names, naive timestamps and missing fields come out as pydantic makes them."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from labdeck.api.body import clean_items
from labdeck.api.errors import MalformedResponse
from labdeck.api.issues import IssuesService, issue_rows, parse_issue_list
from labdeck.api.models.base import parse_many
from labdeck.api.models.fast_lists import PROBE, ListDecoder, fast_decoder
from labdeck.api.models.issues import Issue
from labdeck.api.models.moderation import ModeratedUser
from labdeck.api.models.projects import Project
from labdeck.api.page_fetch import fingerprint
from labdeck.api.projects import ProjectsService
from labdeck.api.users import UsersService

AUTHOR = {"id": 5, "username": "alice", "name": "Alice", "state": "active", "locked": False}
LABEL = {"id": 1, "name": "bug", "color": "#ff0000", "text_color": "#ffffff", "description": None}


def issue(n: int, **fields: Any) -> dict[str, Any]:
    return {"id": n, "iid": n, "project_id": 1, "title": f"t{n}", "description": "d\nline",
            "state": "opened", "created_at": "2026-01-01T10:00:00.000Z", "updated_at": "2026-02-01T10:00:00Z",
            "author": dict(AUTHOR), "assignees": [dict(AUTHOR)], "labels": [dict(LABEL)],
            "milestone": {"id": 3, "title": "v1", "due_date": "2026-03-01", "state": "active"},
            "references": {"short": f"#{n}", "full": f"g/p#{n}"}, "time_stats": {"time_estimate": 60},
            "_links": {"self": "x"}, "task_status": "0 of 0", **fields}


def declared(value: Any) -> Any:
    """A model's declared fields, deeply (what the screens can read), with each timestamp's offset."""
    if isinstance(value, BaseModel):
        return {name: declared(getattr(value, name)) for name in type(value).model_fields}
    if isinstance(value, list):
        return [declared(v) for v in value]
    if isinstance(value, datetime):
        return (value, value.utcoffset())
    return value


def tolerant(model: type[BaseModel], body: bytes) -> list[Any]:
    items = clean_items(body, "GET /test")
    return parse_issue_list(items, sanitised=True) if model is Issue else parse_many(model, items,
                                                                                      sanitised=True)


def fast(model: type[BaseModel], body: bytes, **options: Any) -> list[Any] | None:
    decoder = fast_decoder(model, **options)
    assert decoder is not None
    return decoder.decode(body)


def test_every_listing_model_has_a_fast_path() -> None:
    """A field type the fast path cannot mirror would silently send every page the slow way."""
    assert fast_decoder(Issue) is None  # plain label names need saying how to read them
    for model, options in ((Issue, {"names_as": {"labels": "name"}}), (Project, {}), (ModeratedUser, {})):
        assert fast_decoder(model, **options) is not None


def test_issues_equal_the_tolerant_path_on_every_declared_field() -> None:
    items = [issue(1), issue(2, labels=["plain", dict(LABEL)], assignees=[], milestone=None,
                            created_at="2026-01-01T10:00:00", closed_at="2026-01-02T10:00:00+02:00"),
             {"id": 3, "iid": 3, "project_id": 2}]
    body = json.dumps(items).encode()
    rows = fast(Issue, body, names_as={"labels": "name"})
    assert rows is not None and all(type(row) is Issue for row in rows)
    assert declared(rows) == declared(tolerant(Issue, body))
    assert rows[1].created_at == datetime(2026, 1, 1, 10, tzinfo=UTC)  # naive means UTC
    assert rows[1].labels[0].name == "plain" and rows[1].labels[0].color is None
    assert rows[2].labels == [] and rows[2].state == "opened"  # defaults, as pydantic fills them
    assert rows[2].labels is not rows[0].labels and rows[2].labels is not Issue.model_fields["labels"].default
    assert rows[2].model_fields_set == {"id", "iid", "project_id"}
    assert rows[0].model_extra == {}  # unknown fields are skipped in listing rows


def test_projects_and_users_equal_the_tolerant_path() -> None:
    projects = [{"id": n, "name": f"p{n}", "namespace": {"id": 1, "full_path": "g"}, "topics": ["a"],
                 "forked_from_project": {"id": 9, "deep": [{"k": 1}]},
                 "last_activity_at": "2026-01-01T00:00:00Z",
                 "permissions": {"project_access": None}} for n in range(3)]
    users = [{"id": n, "username": f"u{n}", "state": "active", "last_activity_on": "2026-05-01",
              "identities": [{"provider": "ldap", "extern_uid": "x"}], "is_admin": False} for n in range(3)]
    for model, items in ((Project, projects), (ModeratedUser, users)):
        body = json.dumps(items).encode()
        rows = fast(model, body)
        assert rows is not None and declared(rows) == declared(tolerant(model, body))
    project_rows = fast(Project, json.dumps(projects).encode())
    assert project_rows is not None and project_rows[0].namespace is project_rows[1].namespace


def test_repeated_parts_are_one_object_and_unique_ones_stop_being_shared() -> None:
    decoder = ListDecoder(Issue, names_as={"labels": "name"})
    first = decoder.decode(json.dumps([issue(n) for n in range(PROBE)]).encode())
    second = decoder.decode(json.dumps([issue(n) for n in range(PROBE, PROBE + 3)]).encode())
    assert first is not None and second is not None
    assert first[0].author is first[1].author is second[0].assignees[0]  # across pages too
    assert first[0].labels[0] is second[2].labels[0] and first[0].milestone is second[1].milestone
    # every issue's references differ: after the probe they are no longer kept in a table
    unshared = decoder._shared.unshared
    assert unshared and all(shape.model.__name__ == "References" for shape in unshared)
    assert second[0].reference == f"g/p#{PROBE}"


def test_control_characters_are_made_visible() -> None:
    hostile = issue(1, title="t\x1b[2J", author={**AUTHOR, "username": "u\x9b"},
                    labels=[{**LABEL, "name": "l\x7f"}, "p\x07"], references={"full": "g/p#1\x1b"})
    for ascii_only in (True, False):
        body = json.dumps([hostile, issue(2)], ensure_ascii=ascii_only).encode()
        rows = fast(Issue, body, names_as={"labels": "name"})
        assert rows is not None and declared(rows) == declared(tolerant(Issue, body))
        assert rows[0].title == "t␛[2J" and rows[0].author is not None
        assert rows[0].author.username == "u<U+009B>"
        assert [label.name for label in rows[0].labels] == ["l␡", "p␇"] and rows[0].reference == "g/p#1␛"
        assert rows[1].author is not None and rows[1].author.username == "alice"


@pytest.mark.parametrize("odd", [
    {"id": "7"},  # a string id: pydantic coerces it
    {"confidential": "true"}, {"created_at": 1767225600}, {"title": None}, {"labels": "bug"},
    {"author": {"id": 1.0}}, {"milestone": [1]}, {"due_date": "2026-01-01T00:00:00Z"},
])
def test_a_page_the_fast_path_cannot_mirror_is_refused(odd: dict[str, Any]) -> None:
    body = json.dumps([issue(1), issue(2, **odd)]).encode()
    assert fast(Issue, body, names_as={"labels": "name"}) is None
    decode = issue_rows()
    assert decode is not None
    items = decode(body, "GET /issues")  # the tolerant path's decoded JSON, for `parse_issue_list`
    assert isinstance(items[0], dict) and len(parse_issue_list(items, sanitised=True)) >= 1


def test_bad_json_goes_the_tolerant_way_and_fails_as_before() -> None:
    decode = issue_rows()
    assert decode is not None
    for body in (b"[{", b'{"message": "x"}', b"\xef\xbb\xbf[]", b'[{"title": "\\ud800"}]', b"[1, 2]"):
        try:
            expected: Any = clean_items(body, "GET /issues")
        except MalformedResponse as exc:
            with pytest.raises(MalformedResponse, match=re.escape(str(exc))):
                decode(body, "GET /issues")
        else:
            assert decode(body, "GET /issues") == expected


_text = st.text(alphabet=st.characters(codec="utf-8"), max_size=6)
_stamp = st.sampled_from(["2026-01-01T10:00:00Z", "2026-01-01T10:00:00.123Z", "2026-01-01T10:00:00",
                          "2026-01-01T10:00:00+05:30", "2026-01-01 10:00:00Z", "2026-01-01", "x", ""])
_value = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.floats(allow_nan=False,
                   allow_infinity=False), _text, _stamp)
_user = st.fixed_dictionaries({"id": st.one_of(st.integers(0, 9), _value)},
                              optional={"username": st.one_of(_text, _value), "state": _value})
_issue = st.fixed_dictionaries(
    {"id": st.one_of(st.integers(0, 10**12), _value), "iid": st.integers(0, 9),
     "project_id": st.integers(0, 9)},
    optional={"title": st.one_of(_text, _value), "description": _text, "state": _value, "created_at": _stamp,
              "updated_at": st.one_of(_stamp, _value), "due_date": _stamp, "confidential": _value,
              "author": st.one_of(st.none(), _user, _value), "assignees": st.lists(_user, max_size=2),
              "labels": st.lists(st.one_of(_text, st.fixed_dictionaries({"name": _text}, optional={
                  "color": _value})), max_size=2), "weight": _value,
              "unknown": st.dictionaries(_text, _value),
              "time_stats": st.one_of(st.none(), st.fixed_dictionaries({}, optional={
                  "time_estimate": _value}))})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_issue, min_size=1, max_size=4), st.booleans())
def test_the_fast_path_never_differs_from_the_tolerant_one(items: list[dict[str, Any]],
                                                           ascii_only: bool) -> None:
    body = json.dumps(items, ensure_ascii=ascii_only).encode()
    rows = fast(Issue, body, names_as={"labels": "name"})
    if rows is None:
        return  # refused: the tolerant path reads the page
    assert declared(rows) == declared(tolerant(Issue, body))


def test_fingerprints_tell_pages_apart() -> None:
    one, two = json.dumps([issue(1)]).encode(), json.dumps([issue(2)]).encode()
    assert fingerprint(one) == fingerprint(bytes(one)) and fingerprint(one) != fingerprint(two)
    assert fingerprint(b"[]") != fingerprint(b"[ ]")


def _pages(items: list[dict[str, Any]], per_page: int) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        chunk = items[(page - 1) * per_page:page * per_page]
        last = -(-len(items) // per_page)
        headers = {"x-page": str(page), "x-per-page": str(per_page), "x-total": str(len(items)),
                   "x-total-pages": str(last)}
        if page < last:
            headers["x-next-page"] = str(page + 1)
            headers["link"] = f'<{request.url.copy_set_param("page", page + 1)}>; rel="next"'
        return httpx.Response(200, content=json.dumps(chunk).encode(), headers=headers)
    return handler


async def test_services_give_rows_from_the_bytes_and_the_cache_holds_them(make_client: Any) -> None:
    items = [issue(n) for n in range(1, 6)]
    client = make_client(_pages(items, 2))
    service = IssuesService(client)
    issues = await service.load()
    assert [i.id for i in issues] == [1, 2, 3, 4, 5] and issues[0].author is issues[4].author
    assert declared(issues) == declared(parse_issue_list(json.loads(json.dumps(items))))
    hit = await service.cached()
    assert hit is not None and hit[0] == issues

    users = [{"id": n, "username": f"u{n}", "state": "active"} for n in range(1, 4)]
    listed = await UsersService(make_client(_pages(users, 2))).list_users()
    assert [type(u) for u in listed] == [ModeratedUser] * 3
    assert [u.username for u in listed] == ["u1", "u2", "u3"]

    projects = [{"id": n, "name": f"p{n}", "namespace": {"id": 1}} for n in range(1, 4)]
    window = ProjectsService(make_client(_pages(projects, 2))).window(order_by="name", sort="asc")
    rows = await window.start()
    assert [(type(p), p.name) for p in rows] == [(Project, "p1"), (Project, "p2")] and not window.exhausted


async def test_a_page_with_an_odd_item_keeps_the_others(make_client: Any) -> None:
    """A page the fast path refuses goes through the tolerant path: the readable items stay."""
    items = [issue(1), {"id": None, "iid": 2, "project_id": 1, "title": "no id"}, issue(3)]
    issues = await IssuesService(make_client(_pages(items, 10))).fetch_all()
    assert 1 in [i.id for i in issues] and 3 in [i.id for i in issues]


def test_a_model_of_scalars_only_decodes_fast_and_as_pydantic_does() -> None:
    """A model whose every field is a scalar (the access review's `VariableFlags`) is decoded into a struct,
    not a dict: its rows are built from it, equal to the tolerant path's, its unknown fields (`value`)
    never built."""
    from labdeck.api.models.access import VariableFlags

    items = [{"key": "DEPLOY_TOKEN", "value": "s3cr3t", "protected": True, "masked": False,
              "environment_scope": "*", "variable_type": "env_var"}, {"key": "ONLY"}]
    decoder = fast_decoder(VariableFlags)
    assert decoder is not None
    rows = decoder.decode(json.dumps(items).encode())
    assert rows == parse_many(VariableFlags, items)
    assert rows is not None and "s3cr3t" not in repr(rows)
    assert rows[1].model_fields_set == {"key"}
