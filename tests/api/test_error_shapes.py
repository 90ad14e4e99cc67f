"""Error bodies of every shape GitLab sends become typed errors with the server's message."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from labdeck.api.errors import (
    BadRequest,
    Conflict,
    Forbidden,
    MalformedResponse,
    NotFound,
    NotModified,
    RateLimited,
    Unauthorized,
    Unprocessable,
)
from labdeck.api.settings import RetryPolicy


@pytest.mark.parametrize(("status", "body", "cls", "message"), [
    (404, {"message": "404 User Not Found"}, NotFound, "404 User Not Found"),
    (400, {"message": {"name": ["is invalid"], "path": ["has already been taken"]}}, BadRequest,
     "name is invalid; path has already been taken"),
    (400, {"error": "title is missing"}, BadRequest, "title is missing"),
    (403, {"error": "insufficient_scope", "error_description": "The request requires higher privileges than "
           "provided by the access token.", "scope": "sudo"}, Forbidden,
     "insufficient_scope: The request requires higher privileges than provided by the access token."),
    (403, {"message": "403 Forbidden - Must be admin to use sudo"}, Forbidden,
     "403 Forbidden - Must be admin to use sudo"),
    (401, {"message": "401 Unauthorized"}, Unauthorized, "401 Unauthorized"),
    (409, {"message": "Failed to fork project"}, Conflict, "Failed to fork project"),
    (422, {"message": "Unprocessable \x1b]52;c;ZXZpbA==\x07"}, Unprocessable,
     "Unprocessable ␛]52;c;ZXZpbA==␇"),
])
async def test_json_error_bodies(make_client: Any, status: int, body: Any, cls: type, message: str) -> None:
    client = make_client(lambda r: httpx.Response(status, json=body))
    with pytest.raises(cls) as caught:
        await client.get_json("/users/99")
    assert caught.value.message == message
    assert caught.value.status == status and caught.value.path == "/users/99"


async def test_plain_text_429(make_client: Any) -> None:
    client = make_client(lambda r: httpx.Response(429, text="Retry later\n"),
                         retry=RetryPolicy(max_attempts=1))
    with pytest.raises(RateLimited) as caught:
        await client.get_json("/projects")
    assert caught.value.message == "Retry later"


async def test_empty_error_body_uses_default(make_client: Any) -> None:
    with pytest.raises(NotFound, match="404 Not Found"):
        await make_client(lambda r: httpx.Response(404)).get_json("/x")


async def test_304_raises_unless_allowed(make_client: Any) -> None:
    client = make_client(lambda r: httpx.Response(304))
    with pytest.raises(NotModified):
        await client.request("POST", "/projects/1/issues/1/todo")
    response = await client.request("POST", "/projects/1/issues/1/todo", allow_304=True)
    assert response.status_code == 304


async def test_bad_json_is_malformed_response(make_client: Any) -> None:
    client = make_client(lambda r: httpx.Response(200, text="<html>oops</html>"))
    with pytest.raises(MalformedResponse):
        await client.get_json("/x")


async def test_list_endpoint_answering_an_object_is_malformed(make_client: Any) -> None:
    client = make_client(lambda r: httpx.Response(200, json={"message": "not a list"}))
    with pytest.raises(MalformedResponse):
        await client.fetch_all("/projects")


async def test_empty_body_decodes_to_none(make_client: Any) -> None:
    assert await make_client(lambda r: httpx.Response(204)).delete("/groups/1") is None
