"""Helpers of the service tests that talk to the in-process sandbox: settings for its seeded tokens, and a
pool of `ApiClient`s over one sandbox app (ASGI, no socket) that the fixture closes at the end."""

from __future__ import annotations

from typing import Any

import httpx
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.settings import ConnectionSettings

SANDBOX_URL = "http://sandbox.test"
ROOT_TOKEN = "glpat-sandbox-root"
ALICE_TOKEN = "glpat-sandbox-alice"


def sandbox_settings(token: str = ROOT_TOKEN, sudo: str | None = None) -> ConnectionSettings:
    return ConnectionSettings(SANDBOX_URL, token=SecretStr(token), sudo=sudo)


class ClientPool:
    """Clients over one sandbox app; `aclose()` closes every client it made."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.clients: list[ApiClient] = []

    def client(self, token: str = ROOT_TOKEN, sudo: str | None = None) -> ApiClient:
        client = ApiClient(sandbox_settings(token, sudo), transport=httpx.ASGITransport(self.app))
        self.clients.append(client)
        return client

    async def aclose(self) -> None:
        for client in self.clients:
            await client.aclose()
