"""The request log never shows success for a body the client could not read: a 200 whose JSON does not
parse is logged with its status (what the server sent) and a "malformed JSON" error."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from labdeck.api.errors import MalformedResponse

BAD = b'{"bad":'


def _json(content: bytes, *, headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(200, content=content,
                          headers={"Content-Type": "application/json", **(headers or {})})


async def test_get_json_with_bad_body_logs_the_error(make_client: Any) -> None:
    client = make_client(lambda request: _json(BAD))
    with pytest.raises(MalformedResponse):
        await client.get_json("/projects/1")
    [entry] = client.request_log.entries
    assert entry.status == 200 and entry.path == "/projects/1"
    assert entry.error is not None and entry.error.startswith("malformed JSON")


async def test_good_body_logs_no_error_and_is_parsed_once(make_client: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import labdeck.api.client as client_module

    calls: list[bytes] = []
    real_loads = client_module.jsonlib.loads

    def counting_loads(raw: Any, **kwargs: Any) -> Any:
        calls.append(raw)
        return real_loads(raw, **kwargs)

    monkeypatch.setattr(client_module.jsonlib, "loads", counting_loads)
    client = make_client(lambda request: _json(b'{"id": 1}'))
    assert await client.get_json("/projects/1") == {"id": 1}
    [entry] = client.request_log.entries
    assert entry.status == 200 and entry.error is None
    assert len(calls) == 1


async def test_bad_body_without_json_content_type_is_still_logged_by_get_json(make_client: Any) -> None:
    client = make_client(lambda request: httpx.Response(200, content=b"<html>login</html>",
                                                        headers={"Content-Type": "text/html"}))
    with pytest.raises(MalformedResponse):
        await client.get_json("/user")
    [entry] = client.request_log.entries
    assert entry.status == 200 and entry.error is not None and "malformed JSON" in entry.error
    assert "login" not in entry.error  # no server text in the log


async def test_plain_request_then_decode_logs_the_error(make_client: Any) -> None:
    """Services that call `request()` and then `decode()`: the server declared JSON, so the body is checked
    before logging, and `decode` raises the same failure."""
    client = make_client(lambda request: _json(BAD))
    response = await client.request("POST", "/users/3/block")
    [entry] = client.request_log.entries
    assert entry.status == 200 and entry.error is not None and entry.error.startswith("malformed JSON")
    with pytest.raises(MalformedResponse):
        client.decode(response)


async def test_plain_request_of_non_json_content_is_not_judged(make_client: Any) -> None:
    client = make_client(lambda request: httpx.Response(200, content=b"\x1f\x8b binary export",
                                                        headers={"Content-Type": "application/gzip"}))
    response = await client.request("GET", "/groups/1/export/download")
    assert response.content.startswith(b"\x1f\x8b")
    [entry] = client.request_log.entries
    assert entry.status == 200 and entry.error is None


async def test_post_put_delete_json_log_the_error(make_client: Any) -> None:
    client = make_client(lambda request: _json(BAD))
    with pytest.raises(MalformedResponse):
        await client.post_json("/projects", {"name": "x"})
    with pytest.raises(MalformedResponse):
        await client.put_json("/projects/1", {"name": "y"})
    with pytest.raises(MalformedResponse):
        await client.delete("/projects/1")
    entries = client.request_log.entries
    assert [e.method for e in entries] == ["POST", "PUT", "DELETE"]
    assert all(e.status == 200 and e.error and "malformed JSON" in e.error for e in entries)


async def test_fetch_all_with_a_bad_page_logs_that_page(make_client: Any) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        page = int(request.url.params.get("page", "1"))
        headers = {"X-Total-Pages": "3", "X-Total": "5", "X-Per-Page": "2", "X-Page": str(page),
                   "X-Next-Page": str(page + 1) if page < 3 else ""}
        if page == 2:
            return _json(BAD, headers=headers)
        return _json(b'[{"id": %d}, {"id": %d}]' % (page * 10, page * 10 + 1), headers=headers)

    client = make_client(handler)
    with pytest.raises(MalformedResponse):
        await client.fetch_all("/projects", per_page=2)
    bad = [e for e in client.request_log.entries if e.error]
    assert len(bad) == 1 and "page=2" in bad[0].path
    assert bad[0].status == 200 and bad[0].error is not None and bad[0].error.startswith("malformed JSON")
    good = [e for e in client.request_log.entries if "page=1" in e.path]
    assert good and all(e.error is None for e in good)


async def test_empty_body_is_not_an_error(make_client: Any) -> None:
    client = make_client(lambda request: httpx.Response(204))
    assert await client.delete("/projects/1") is None
    [entry] = client.request_log.entries
    assert entry.status == 204 and entry.error is None
