"""The ASGI layer in front of the API: simulated latency, rate-limit headers (a per-token window counter),
and seeded fault injection (`429`, `429r`, `500`, `502`, `503`, `504`, `reset`, `slow`, `badjson`).

Faults are drawn from one `random.Random(fault_seed)`, one draw per API request, so a given sequence of
requests meets the same faults on every run. `reset` starts a response and then raises
`SandboxConnectionReset`: uvicorn closes the socket (the client sees a broken connection), and httpx's
ASGITransport re-raises the exception to the caller.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import math
import random
from typing import Any
from urllib.parse import unquote

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from labdeck.sandbox.clock import Clock
from labdeck.sandbox.options import FAULT_KINDS, SandboxOptions

API_PREFIX = "/api/v4"
GRAPHQL_PATH = "/api/graphql"


class SandboxConnectionReset(ConnectionResetError):
    """Raised by the app to drop the connection mid-response (the `reset` fault)."""


def _token_key(scope: Scope) -> str:
    """Whose window a request counts against: a digest of its token (never the token), else its address."""
    return hashlib.sha256(_credential(scope).encode()).hexdigest()[:16]


def _credential(scope: Scope) -> str:
    headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
    for name in ("private-token", "authorization", "job-token"):
        if headers.get(name):
            value = headers[name].strip()
            return value[7:].strip() if value.lower().startswith("bearer ") else value
    query = scope.get("query_string", b"").decode("latin-1")
    for part in query.split("&"):
        name, _, value = part.partition("=")
        if name in ("private_token", "access_token", "job_token"):
            return unquote(value)
    client = scope.get("client") or ("anonymous", 0)
    return f"ip:{client[0]}"


class FaultLayer:
    """ASGI middleware: latency, rate limits and faults, for paths under `/api/v4` and `/api/graphql`."""

    def __init__(self, app: ASGIApp, options: SandboxOptions, clock: Clock) -> None:
        self.app = app
        self.options = options
        self.clock = clock
        self.faults = dict(options.fault_map)
        self.rng = random.Random(options.fault_seed)
        self.windows: dict[str, tuple[float, int]] = {}

    def draw(self) -> str | None:
        """The fault for the next request, or None."""
        if not self.faults:
            return None
        roll = self.rng.random()
        total = 0.0
        for kind in FAULT_KINDS:
            total += self.faults.get(kind, 0.0)
            if roll < total:
                return kind
        return None

    def _count(self, key: str) -> tuple[int, int]:
        """Count one request for `key`; return (remaining, reset epoch)."""
        now = self.clock.time()
        window = self.options.rate_window
        start, used = self.windows.get(key, (now, 0))
        if now - start >= window:
            start, used = now, 0
        used += 1
        self.windows[key] = (start, used)
        return self.options.rate_limit - used, math.ceil(start + window)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not (path.startswith(API_PREFIX) or path == GRAPHQL_PATH):
            await self.app(scope, receive, send)
            return
        if self.options.latency_ms:
            await asyncio.sleep(self.options.latency_ms / 1000)
        fault = self.draw()
        remaining, reset = self._count(_token_key(scope))
        limit = self.options.rate_limit
        rate_headers = [(b"ratelimit-limit", str(limit).encode()),
                        (b"ratelimit-remaining", str(max(remaining, 0)).encode()),
                        (b"ratelimit-reset", str(reset).encode()),
                        (b"ratelimit-observed", str(limit - remaining).encode())]
        if remaining < 0 or fault == "429":
            retry = max(1, reset - math.floor(self.clock.time())) if remaining < 0 else 1
            retry_header = (b"retry-after", str(retry).encode())
            await _send_plain(send, 429, b"Retry later\n", [*rate_headers, retry_header])
            return
        if fault == "429r":
            await _send_plain(send, 429, b"Retry later\n", [])
            return
        if fault in ("500", "502", "503", "504"):
            await _send_server_error(send, int(fault), rate_headers)
            return
        if fault == "reset":
            await send({"type": "http.response.start", "status": 200,
                        "headers": [(b"content-type", b"application/json"), (b"content-length", b"4096")]})
            raise SandboxConnectionReset("sandbox fault: connection reset")
        if fault == "slow":
            await asyncio.sleep(self.options.slow_seconds)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *rate_headers]}
            await send(message)

        if fault == "badjson":
            await self._truncated(scope, receive, send_with_headers)
            return
        await self.app(scope, receive, send_with_headers)

    async def _truncated(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Run the app, then send its body cut short (JSON that does not parse)."""
        start: dict[str, Any] = {}
        chunks: list[bytes] = []

        async def capture(message: Message) -> None:
            if message["type"] == "http.response.start":
                start.update(message)
            elif message["type"] == "http.response.body":
                chunks.append(message.get("body", b""))

        await self.app(scope, receive, capture)
        body = b"".join(chunks)
        cut = body[: max(1, len(body) // 2)] if len(body) > 1 else b"{"
        headers = [(k, v) for k, v in start.get("headers", []) if k.lower() != b"content-length"]
        headers.append((b"content-length", str(len(cut)).encode()))
        await send({"type": "http.response.start", "status": start.get("status", 200), "headers": headers})
        await send({"type": "http.response.body", "body": cut})


async def _send_plain(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", b"text/plain"), (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})


async def _send_server_error(send: Send, status: int, headers: list[tuple[bytes, bytes]]) -> None:
    if status == 500:
        body = json.dumps({"message": "500 Internal Server Error"}).encode()
        kind = b"application/json"
    else:
        reason = {502: "Bad Gateway", 503: "Service Unavailable", 504: "Gateway Timeout"}[status]
        body = f"<html><body><h1>{status} {reason}</h1></body></html>\n".encode()
        kind = b"text/html"
    await send({"type": "http.response.start", "status": status, "headers": [
        (b"content-type", kind), (b"content-length", str(len(body)).encode()), *headers]})
    await send({"type": "http.response.body", "body": body})
