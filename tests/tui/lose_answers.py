"""A transport for the TUI tests of lost answers: it wraps another (a sandbox's) and loses the answer of the
next `count` requests whose method is `method` and whose path matches `path` (a regular expression):

- "truncated": the request is applied and its body cut in half (a `MalformedResponse` for the client);
- "reset": the request is applied, then the connection breaks while the answer is read;
- "before": the connection breaks before the server sees the request, but after it may have been sent as
  far as the client can tell (nothing applied; the re-read must say so).

`seen` counts the matching requests that reached the server (so a test can assert no duplicate)."""

from __future__ import annotations

import re

import httpx


class LoseAnswers(httpx.AsyncBaseTransport):
    def __init__(self, inner: httpx.AsyncBaseTransport, method: str, path: str, how: str,
                 count: int = 1) -> None:
        self.inner = inner
        self.method = method
        self.path = re.compile(path)
        self.how = how
        self.count = count
        self.seen = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        matches = request.method == self.method and self.path.search(request.url.path) is not None
        if not matches:
            return await self.inner.handle_async_request(request)
        if self.count <= 0:
            self.seen += 1
            return await self.inner.handle_async_request(request)
        self.count -= 1
        if self.how == "before":
            raise httpx.ReadError("connection reset by peer", request=request)
        self.seen += 1
        response = await self.inner.handle_async_request(request)
        await response.aread()
        if self.how == "reset":
            raise httpx.ReadError("connection reset by peer", request=request)
        return httpx.Response(response.status_code, headers={"content-type": "application/json"},
                              content=response.content[: len(response.content) // 2] or b"{", request=request)
