"""Shared by the fault tests of every folder (api, CLI, TUI): the fault mix they run the sandbox with, a
transport that makes the in-process sandbox drop connections as a socket does, and settings that retry
fast."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from labdeck.api.settings import ConnectionSettings, RetryPolicy

FAULTS = "badjson=0.3,503=0.2,reset=0.1,429=0.2"


class SocketLike(httpx.ASGITransport):
    """The in-process sandbox; a dropped connection surfaces as it does over a socket (`ReadError`)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except ConnectionResetError as exc:
            raise httpx.ReadError(str(exc), request=request) from None


def fast_retry_settings(name: str) -> ConnectionSettings:
    """Root on the sandbox, with three attempts a few milliseconds apart."""
    return ConnectionSettings(url="http://sandbox.test", token=SecretStr("glpat-sandbox-root"), name=name,
                              retry=RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.002,
                                                max_total=0.01))
