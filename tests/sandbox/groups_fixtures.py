"""Shared helpers of the groups-area conformance tests: tokens and a short request helper."""

from __future__ import annotations

from typing import Any

import httpx

API = "/api/v4"
ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
# carol owns acme; frank maintains it; alice is a developer there and owns opensource.
CAROL_ID, FRANK_ID, ALICE_ID, BOB_ID, DAVE_ID, ERIN_ID = 4, 7, 2, 3, 5, 6


async def call(
    client: httpx.AsyncClient, method: str, path: str, headers: dict[str, str] | None = None, **kwargs: Any
) -> httpx.Response:
    return await client.request(method, f"{API}{path}", headers=headers or {}, **kwargs)


async def as_sudo(
    client: httpx.AsyncClient, method: str, path: str, user: str, **kwargs: Any
) -> httpx.Response:
    return await call(client, method, path, {**ROOT, "Sudo": user}, **kwargs)
