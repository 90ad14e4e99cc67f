"""Sanitising once per response: the raw-body check never misses a control character (raw, escaped in
any case, C1 in UTF-8, in keys too), list pages from the client come out clean, and parsing with the
`SANITISED` context neither walks nested models again nor lets a hostile string through."""

from __future__ import annotations

import json
import re
from typing import Any

import httpx
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.api.issues import IssuesService, parse_issue_list
from labdeck.api.models import base as models_base
from labdeck.api.models.base import parse_many
from labdeck.api.models.issues import Issue
from labdeck.domain.text import (
    may_hold_control,
    parsed_may_hold_control,
    sanitize,
    sanitize_deep,
    sanitize_json,
)

CONTROLS = [*range(0x00, 0x09), *range(0x0B, 0x20), 0x7F, *range(0x80, 0xA0)]


def _bodies(text: str) -> list[bytes]:
    """`text` as a value and as a key, in every form a server may send it."""
    out = []
    for doc in ({"v": text}, {text: 1}, [{"nested": {"deeper": [text]}}]):
        for ascii_only in (True, False):
            encoded = json.dumps(doc, ensure_ascii=ascii_only)
            out.append(encoded.encode())
            out.append(re.sub(r"\\u([0-9a-f]{4})", lambda m: "\\u" + m.group(1).upper(), encoded).encode())
    return out


@pytest.mark.parametrize("code", CONTROLS)
def test_every_control_character_is_seen_in_every_encoding(code: int) -> None:
    for body in _bodies(f"a{chr(code)}b"):
        assert sanitize_deep(json.loads(body)) != json.loads(body)  # a real control character
        assert may_hold_control(body), (hex(code), body)


@pytest.mark.parametrize("code", CONTROLS)
def test_the_check_after_parsing_sees_every_control_the_parser_accepts(code: int) -> None:
    """`parsed_may_hold_control` skips the raw C0 scan: orjson refuses raw C0 inside strings, so every body
    it accepts with a control character is still caught (escaped, raw DEL, C1 in UTF-8)."""
    for body in _bodies(f"a{chr(code)}b"):
        try:
            orjson.loads(body)
        except orjson.JSONDecodeError:
            continue
        assert parsed_may_hold_control(body), (hex(code), body)


@given(st.text(), st.booleans())
@settings(max_examples=300)
def test_no_parsed_body_with_a_control_is_missed(text: str, ascii_only: bool) -> None:
    body = json.dumps({text: [text]}, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError:  # lone surrogates: not UTF-8
        return
    if sanitize_deep(value) != value:
        assert parsed_may_hold_control(body)


def test_raw_del_c1_and_c0_bytes_are_seen() -> None:
    assert may_hold_control(b'["a\x7fb"]')
    assert may_hold_control('["a\x9bb"]'.encode())  # C2 9B
    assert may_hold_control(b'["a\x1bb"]')  # invalid JSON, but never trusted


@pytest.mark.parametrize("body", [
    b'[{"title":"plain","n":1,"ok":true,"x":null}]',
    b'["line\\nbreak\\ttab \\"quoted\\" back\\\\slash \\/"]',
    '["caf\u00e9 \u00a0nbsp \u00a9 \U0001f600"]'.encode(),  # C2 A0 and C2 A9 are not controls
    b'["caf\\u00e9 \\u00a0 \\u2028 \\ud83d\\ude00"]',
])
def test_clean_bodies_need_no_walk(body: bytes) -> None:
    assert not may_hold_control(body)
    assert not parsed_may_hold_control(body)
    assert sanitize_deep(json.loads(body)) == json.loads(body)


def test_utf16_bodies_are_always_walked() -> None:
    assert may_hold_control(json.dumps(["plain"]).encode("utf-16"))


@settings(max_examples=300, deadline=None)
@given(st.recursive(st.text(), lambda inner: st.lists(inner, max_size=3)
                    | st.dictionaries(st.text(max_size=5), inner, max_size=3), max_leaves=6),
       st.booleans())
def test_the_check_never_misses_what_the_walk_would_change(value: Any, ascii_only: bool) -> None:
    body = json.dumps(value, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    if sanitize_deep(value) != value:
        assert may_hold_control(body)
    assert sanitize_json(value) == sanitize_deep(value)


def test_sanitize_json_keeps_a_clean_value_and_copies_a_dirty_one() -> None:
    clean = [{"a": ["b"]}]
    assert sanitize_json(clean) is clean
    dirty = [{"k\x1b": ["v\x9b"]}]
    assert sanitize_json(dirty) == [{"k␛": ["v<U+009B>"]}] and dirty == [{"k\x1b": ["v\x9b"]}]


HOSTILE_ISSUE = {
    "id": 7, "iid": 2, "project_id": 1, "title": "t\x1b[2J", "author": {"id": 2, "username": "u\x9b"},
    "assignees": [{"id": 3, "name": "n\x07", "extra_user_field": ["e\x1b"]}],
    "labels": [{"name": "l\x7f", "color": "#fff"}], "milestone": {"id": 1, "title": "m\x1b"},
    "references": {"full": "g/p#2\x1b"}, "unknown": {"deep": [{"k\x1b": "v\x1b"}]},
}


def _assert_visible(issue: Issue) -> None:
    assert issue.title == "t␛[2J" and issue.author is not None and issue.author.username == "u<U+009B>"
    assert issue.assignees[0].name == "n␇"
    assert issue.assignees[0].model_extra == {"extra_user_field": ["e␛"]}
    assert issue.labels[0].name == "l␡" and issue.milestone is not None and issue.milestone.title == "m␛"
    assert issue.reference == "g/p#2␛"
    assert issue.model_extra is not None and issue.model_extra["unknown"] == {"deep": [{"k␛": "v␛"}]}


def test_nested_models_do_not_walk_again(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[object] = []

    def counting(value: object) -> object:
        calls.append(value)
        return sanitize_deep(value)

    monkeypatch.setattr(models_base, "sanitize_deep", counting)
    issues = parse_issue_list([HOSTILE_ISSUE, {**HOSTILE_ISSUE, "id": 8}])
    assert len(issues) == 2
    for issue in issues:
        _assert_visible(issue)
    assert calls == []  # one walk of the whole list (sanitize_json), none inside any model
    alone = Issue.model_validate(HOSTILE_ISSUE)  # without the context flag: one walk, at the top only
    assert len(calls) == 1
    _assert_visible(alone)


def test_parse_many_with_sanitised_trusts_its_input() -> None:
    trusted = parse_many(Issue, [{"id": 1, "iid": 1, "project_id": 1, "title": "already clean"}],
                         sanitised=True)
    assert trusted[0].title == "already clean"
    assert parse_many(Issue, [HOSTILE_ISSUE])[0].title == "t␛[2J"


async def test_client_pages_come_out_clean_and_parse_without_a_walk(make_client: Any) -> None:
    clean_issue = {"id": 9, "iid": 3, "project_id": 1, "title": "fine"}

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        items = [clean_issue] if page == 1 else [HOSTILE_ISSUE]
        headers = {"x-page": str(page), "x-per-page": "1", "x-total": "2", "x-total-pages": "2"}
        if page == 1:
            headers["x-next-page"] = "2"
        # the hostile page escapes its controls the way most servers do (`\u001b`)
        return httpx.Response(200, content=json.dumps(items).encode(), headers=headers)

    client = make_client(handler)
    raw = await client.fetch_all("/issues", {"scope": "all"}, per_page=1)
    assert raw[0] == clean_issue and raw[1]["title"] == "t␛[2J"
    assert raw[1]["unknown"] == {"deep": [{"k␛": "v␛"}]}
    issues = await IssuesService(client).fetch_all()
    assert [i.id for i in issues] == [9, 7]
    _assert_visible(issues[1])


def test_sanitize_is_unchanged_for_tab_and_newline() -> None:
    assert sanitize("a\tb\nc") == "a\tb\nc" and not may_hold_control(json.dumps("a\tb\nc").encode())


def test_paused_gc_restores_the_collector_even_when_nested_or_failing() -> None:
    import gc

    from labdeck.api.models.base import paused_gc

    assert gc.isenabled()
    with paused_gc():
        assert not gc.isenabled()
        with paused_gc():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer pause still holds
    assert gc.isenabled()
    with pytest.raises(RuntimeError), paused_gc():
        raise RuntimeError("boom")
    assert gc.isenabled()
    gc.disable()
    try:
        with paused_gc():
            pass
        assert not gc.isenabled()  # left off, as it was
    finally:
        gc.enable()


async def test_load_does_not_fetch_page_one_twice(make_client: Any) -> None:
    seen: list[str | None] = []

    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        seen.append(request.url.params.get("page"))
        items = [{"id": page * 10 + n, "iid": n, "project_id": 1, "title": f"p{page}"} for n in range(2)]
        headers = {"x-page": str(page), "x-per-page": "2"}
        if page < 3:
            headers["x-next-page"] = str(page + 1)
            headers["link"] = f'<http://gitlab.example/api/v4/issues?page={page + 1}>; rel="next"'
        return httpx.Response(200, json=items if page < 3 else items[:1], headers=headers)

    issues = await IssuesService(make_client(handler)).load()
    assert seen.count("1") == 1 and seen[0] == "1"  # pages 2.. are fetched speculatively, page 1 once
    assert [i.title for i in issues] == ["p1", "p1", "p2", "p2", "p3"]
