"""The group transfer service: group export (start, poll, download), group import (multipart), and the
relations export (start, status, per-relation download). Downloads answer 404 until ready, so the `wait_*`
methods poll with a backing-off interval until the file is there or the status settles. This is the only
module that knows these paths."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError, NotFound
from labdeck.api.groups import GroupRef
from labdeck.api.models.group_transfer import RelationState, RelationStatus
from labdeck.api.request_log import expecting
from labdeck.domain import catalogue as ep

Sleep = Callable[[float], Awaitable[None]]
OnPoll = Callable[[int], None]  # called with the attempt number before each wait

R = TypeVar("R")  # what a poll waits for


class TransferTimeout(LabdeckError):
    """An export that did not become ready in time."""


def poll_delays(first: float = 0.5, factor: float = 1.6, cap: float = 5.0) -> Callable[[int], float]:
    """The wait before poll `n` (1-based): `first`, then growing by `factor`, at most `cap` seconds."""
    return lambda n: min(cap, first * factor ** (n - 1))


class GroupTransferService:
    """Group export, import and relations export on one instance."""

    def __init__(self, client: ApiClient, *, sleep: Sleep = asyncio.sleep,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.client = client
        self._sleep = sleep
        self._clock = clock
        self.delay = poll_delays()

    # -- export ---------------------------------------------------------------------------------------
    async def start_export(self, group: GroupRef) -> Any:
        """`POST /groups/:id/export` (202 `{"message": "202 Accepted"}`)."""
        return await self.client.post_json(ep.GROUP_EXPORT.path(group))

    async def download_export(self, group: GroupRef) -> bytes | None:
        """The exported archive, or None while it is not ready (the server's 404)."""
        try:
            with expecting({404}, "not ready yet (polling)"):
                response = await self.client.request("GET", ep.GROUP_EXPORT_DOWNLOAD.path(group))
        except NotFound:
            return None
        return response.content

    async def wait_for_export(self, group: GroupRef, *, within: float = 600.0,
                              on_poll: OnPoll | None = None) -> bytes:
        """Poll the download until the archive is ready; `TransferTimeout` after `within` seconds."""
        return await self._poll(lambda: self.download_export(group), within, on_poll)

    async def _poll(self, attempt: Callable[[], Awaitable[R | None]], within: float,
                    on_poll: OnPoll | None) -> R:
        deadline = self._clock() + within
        number = 0
        while True:
            number += 1
            result = await attempt()
            if result is not None:
                return result
            if self._clock() >= deadline:
                raise TransferTimeout(f"not ready after {within:g}s")
            if on_poll is not None:
                on_poll(number)
            await self._sleep(self.delay(number))

    # -- import ---------------------------------------------------------------------------------------
    async def import_group(self, name: str, path: str, archive: bytes, *, filename: str = "export.tar.gz",
                           parent_id: int | None = None) -> Any:
        """`POST /groups/import` as multipart; the group is private unless imported into a parent."""
        if not name or not path:
            raise ValueError("an import needs a name and a path")
        data = {"name": name, "path": path, **({"parent_id": str(parent_id)} if parent_id else {})}
        try:
            return await self.client.post_json(ep.GROUP_IMPORT.path(), data=data,
                                               files={"file": (filename, archive, "application/gzip")})
        finally:
            self.client.cache.forget(ep.GROUP_IMPORT)

    # -- relations export -----------------------------------------------------------------------------
    async def start_relations_export(self, group: GroupRef) -> Any:
        return await self.client.post_json(ep.GROUP_RELATIONS_EXPORT.path(group))

    async def relations_status(self, group: GroupRef) -> list[RelationStatus]:
        status = b.GROUP_RELATIONS_STATUS
        return status.parse(await self.client.get_json(status.path(group)))  # never cached: polled

    async def wait_for_relations(self, group: GroupRef, *, within: float = 600.0,
                                 on_poll: OnPoll | None = None) -> list[RelationStatus]:
        """Poll the status until no relation is still started (each ends finished or failed)."""
        async def settled() -> list[RelationStatus] | None:
            statuses = await self.relations_status(group)
            if statuses and all(s.status != RelationState.STARTED for s in statuses):
                return statuses
            return None
        return await self._poll(settled, within, on_poll)

    async def download_relation(self, group: GroupRef, relation: str) -> bytes | None:
        """The compressed NDJSON of one relation, or None while it is not ready (or failed)."""
        try:
            path = ep.GROUP_RELATIONS_DOWNLOAD.path(group)
            with expecting({404}, "not ready yet (polling)"):
                response = await self.client.request("GET", path, params={"relation": relation})
        except NotFound:
            return None
        return response.content
