"""The sandbox knows who is calling before it reads a body, and reads no more than GitLab's default cap
(issue 32 item 11): an anonymous 40 MB PUT was read and parsed whole before the 401 (about 120 MiB).

- A credential in the headers or the query string is checked before any byte of the body is read.
- With none there, a body may still carry one (GitLab reads `private_token` from body parameters), so it is
  read up to `bodies.ANONYMOUS_BODY` bytes; past that the answer is 401 and the rest is never read (no
  GitLab write is open to anonymous callers).
- An authenticated body is capped at GitLab's default `max_attachment_size`, 100 MiB
  (doc/administration/settings/account_and_limit_settings.md, "Max attachment size"), and refused as
  GitLab's `file_too_large!` refuses one (lib/api/helpers.rb): 413 `{"message":"413 Request Entity Too
  Large"}`; a declared `Content-Length` over the cap unread, a chunked body at its first byte over.

Each test counts the bytes the ASGI app pulls from `receive`, and the chunks the client's body generator
was asked for."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from labdeck.sandbox import bodies
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

MIB = 1024 * 1024
ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
TOO_LARGE = {"message": "413 Request Entity Too Large"}
UNAUTHORIZED = {"message": "401 Unauthorized"}


class Counting:
    """The sandbox app, counting the body bytes it pulls from `receive`."""

    def __init__(self, options: SandboxOptions | None = None) -> None:
        self.app = create_app(options or SandboxOptions(scale="tiny"), clock=ManualClock())
        self.read = 0

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def counted() -> Any:
            message = await receive()
            self.read += len(message.get("body", b""))
            return message

        await self.app(scope, counted, send)


class Body:
    """`chunks` chunks of `size` bytes, counting how many were asked for."""

    def __init__(self, chunks: int, size: int = MIB, fill: bytes = b" ") -> None:
        self.chunks, self.size, self.fill, self.given = chunks, size, fill, 0

    @property
    def length(self) -> int:
        return self.chunks * self.size

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.chunks):
            self.given += 1
            yield self.fill * self.size


def client_of(app: Counting) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test")


async def send(app: Counting, method: str, path: str, body: Body, *, declared: bool,
               headers: dict[str, str] | None = None) -> httpx.Response:
    sent = {"Content-Type": "application/json", **(headers or {})}
    if declared:
        sent["Content-Length"] = str(body.length)
    async with client_of(app) as client:
        return await client.request(method, path, content=body.__aiter__(), headers=sent)


@pytest.mark.parametrize("declared", [True, False])
@pytest.mark.parametrize("headers", [{}, {"PRIVATE-TOKEN": "glpat-not-a-token"}])
async def test_an_anonymous_or_unknown_caller_is_refused_before_its_body_is_read(
        declared: bool, headers: dict[str, str]) -> None:
    app, body = Counting(), Body(40)  # 40 MiB
    answer = await send(app, "PUT", "/api/v4/projects/1", body, declared=declared, headers=headers)
    assert (answer.status_code, answer.json()) == (401, UNAUTHORIZED)
    if declared or headers:
        assert app.read == 0 and body.given == 0  # the header said enough
    else:  # chunked: at most the anonymous bound (plus the chunk that crossed it)
        assert app.read <= bodies.ANONYMOUS_BODY + MIB and body.given <= 2


async def test_an_authenticated_body_over_gitlabs_cap_is_413_unread() -> None:
    app, body = Counting(), Body(101)  # 101 MiB, declared
    assert SandboxOptions().max_body == 100 * MIB
    answer = await send(app, "PUT", "/api/v4/projects/1", body, declared=True, headers=ROOT)
    assert (answer.status_code, answer.json()) == (413, TOO_LARGE)
    assert app.read == 0 and body.given == 0


async def test_a_chunked_authenticated_body_stops_at_the_first_byte_over_the_cap() -> None:
    app, body = Counting(SandboxOptions(scale="tiny", max_body=4 * MIB)), Body(40)
    answer = await send(app, "PUT", "/api/v4/projects/1", body, declared=False, headers=ROOT)
    assert (answer.status_code, answer.json()) == (413, TOO_LARGE)
    assert app.read <= 5 * MIB and body.given <= 5


async def test_a_body_within_the_cap_and_a_credential_in_a_small_body_still_work() -> None:
    app = Counting()
    issues = "/api/v4/projects/1/issues"
    async with client_of(app) as client:
        created = await client.post(issues, headers=ROOT, json={"title": "big", "description": "x" * 300_000})
        assert created.status_code == 201 and created.json()["description"] == "x" * 300_000
        by_body = await client.post(issues, json={"title": "json", "private_token": "glpat-sandbox-root"})
        assert by_body.status_code == 201 and by_body.json()["author"]["username"] == "root"
        by_form = await client.post(issues, data={"title": "form", "private_token": "glpat-sandbox-root"})
        assert by_form.status_code == 201 and by_form.json()["title"] == "form"


async def test_graphql_reads_no_more_than_the_rest_api() -> None:
    """GraphQL serves anonymous callers, so an anonymous body over the bound is 413 (not 401), unread."""
    app, body = Counting(), Body(40)
    answer = await send(app, "POST", "/api/graphql", body, declared=True)
    assert answer.status_code == 413 and app.read == 0 and body.given == 0
    app, body = Counting(), Body(40)
    answer = await send(app, "POST", "/api/graphql", body, declared=False)
    assert answer.status_code == 413 and app.read <= bodies.ANONYMOUS_BODY + MIB
