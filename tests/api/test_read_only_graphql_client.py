"""A read-only client lets out no GraphQL mutation (issue 32 item 7): the three ways one left (a `_json` key
in the body, `?query=` in the URL, a `data=`/`files=`/`content=` body beside `json=`) are refused before
anything is sent, over a real socket to the sandbox, which records every request that reaches it.

GitLab's `GraphqlController` runs `params[:_json]` as a multiplex when it is an array, and reads `params`,
in which Rails merges the URL's query over the body's parameters (`request_parameters.merge(
query_parameters)`): the document checked would not be the document run. httpx sends `content=`, then
`files=`, then `data=` before `json=`: the JSON that was checked would not be the body sent."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from api_fakes import settings
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.errors import ReadOnly
from labdeck.domain.endpoints import RawPath
from labdeck.sandbox.app import create_app
from loopback import serve

QUERY = "{ currentUser { username } }"
MUTATION = ('mutation { destroyContainerRepository(input: {id: "gid://gitlab/ContainerRepository/1"}) '
            "{ errors } }")


class Recording:
    """An ASGI app before the sandbox that records each HTTP request reaching it (method, path, query)."""

    def __init__(self) -> None:
        self.inner = create_app()
        self.seen: list[tuple[str, str, bytes]] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http":
            self.seen.append((scope["method"], scope["path"], scope["query_string"]))
        await self.inner(scope, receive, send)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[tuple[str, Recording]]:
    app = Recording()
    with serve(app) as url:
        yield url, app


def _client(url: str, read_only: bool = True) -> ApiClient:
    return ApiClient(settings(url=url, token=SecretStr("glpat-sandbox-root"), read_only=read_only))


BYPASSES: dict[str, tuple[str, dict[str, Any]]] = {
    "_json key": ("", {"json": {"query": QUERY, "_json": [{"query": MUTATION}]}}),
    "?query= in the path": ("?query=" + MUTATION, {"json": {"query": QUERY}}),
    "query in params": ("", {"json": {"query": QUERY}, "params": {"query": MUTATION}}),
    "data= beside json=": ("", {"json": {"query": QUERY}, "data": {"query": MUTATION}}),
    "files= beside json=": ("", {"json": {"query": QUERY}, "files": {"query": ("q", MUTATION.encode())}}),
    "content= beside json=": ("", {"json": {"query": QUERY}, "content": b'{"query": "mutation { x }"}'}),
    "a form content type": ("", {"json": {"query": QUERY},
                                 "headers": {"Content-Type": "application/x-www-form-urlencoded"}}),
}


@pytest.mark.parametrize("name", list(BYPASSES))
async def test_each_bypass_is_refused_before_sending(sandbox: tuple[str, Recording], name: str) -> None:
    url, app = sandbox
    suffix, kwargs = BYPASSES[name]
    before = len(app.seen)
    async with _client(url) as api:
        with pytest.raises(ReadOnly, match="nothing was sent"):
            await api.request("POST", RawPath(url + "/api/graphql" + suffix), **kwargs)
    assert app.seen[before:] == []


async def test_the_allowed_shape_still_reads_and_the_writable_client_sends(
        sandbox: tuple[str, Recording]) -> None:
    url, app = sandbox
    async with _client(url) as api:
        answer = await api.request("POST", RawPath(url + "/api/graphql"),
                                   json={"query": QUERY, "variables": {}, "operationName": None})
        assert answer.status_code == 200
    before = len(app.seen)
    async with _client(url, read_only=False) as api:  # the test could fail: the request can leave
        await api.request("POST", RawPath(url + "/api/graphql?query=" + QUERY), json={"query": QUERY})
    assert [(m, p) for m, p, _ in app.seen[before:]] == [("POST", "/api/graphql")]
