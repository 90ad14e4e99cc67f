"""A transport for the TUI tests: the tiny sandbox in-process, where chosen requests fail (a 500 with a
message) a number of times before they succeed. Its tests wait with
`settle(pilot, rounds=2, failed_ok=True)`: a failed worker was already handled by the app."""

from __future__ import annotations

from collections.abc import Callable

import httpx
from tiny_sandbox import Sandbox


class FailingSandbox(httpx.AsyncBaseTransport):
    """Requests for which `match(request)` is true answer 500 `{"message": "boom"}` while `failures` > 0."""

    def __init__(self, match: Callable[[httpx.Request], bool], failures: int = 1) -> None:
        self.inner = Sandbox().factory(None)
        self.match = match
        self.failures = failures
        self.failed = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if self.failures > 0 and self.match(request):
            self.failures -= 1
            self.failed += 1
            return httpx.Response(500, json={"message": "boom"}, request=request)
        return await self.inner.handle_async_request(request)

