"""Test doubles for the api tests: settings with a known token, and a sleep that only records."""

from __future__ import annotations

from typing import Any

from pydantic import SecretStr

from labdeck.api.settings import ConnectionSettings, RetryPolicy, Timeouts

BASE = "https://gitlab.example.com"
TOKEN = "glpat-SECRET-token-0123456789"


class FakeSleep:
    """Records requested waits instead of waiting."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)



def settings(**overrides: Any) -> ConnectionSettings:
    values: dict[str, Any] = {
        "url": BASE, "token": SecretStr(TOKEN), "auth": "private",
        "retry": RetryPolicy(max_attempts=4, base_delay=0.5, max_delay=30.0, max_total=60.0),
        "timeouts": Timeouts(connect=5, read=5, pool=5, deadline=30),
    }
    values.update(overrides)
    return ConnectionSettings(**values)
