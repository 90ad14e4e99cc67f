"""Tag details read while the tag list is still arriving: `DetailStream` takes the names of each list page
as it comes (`add`) and starts their detail reads at once, by GraphQL batches of `BATCH` names or one REST
request per name, so the detail requests overlap the list pages instead of waiting for the last of them.
Every request goes through the client, whose semaphore bounds how many are in flight together.

`finish()` reads what is left and gives every name's detail (None: the tag is gone) and the names whose
GraphQL batch was refused (the caller decides how to read those: the tags connection, or REST).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from labdeck.api.models.registry import RegistryTagDetail
from labdeck.api.registry_graphql import GraphQLRefused

Found = dict[str, RegistryTagDetail | None]
ReadBatch = Callable[[list[str]], Awaitable[Found]]
Progress = Callable[[int, int], None]


class DetailStream:
    """Detail reads started as names arrive (`size` names per request); progress counts the names
    already known (`known`, from a cache or an earlier page) as done."""

    def __init__(self, read: ReadBatch, size: int, on_progress: Progress | None = None) -> None:
        self.read = read
        self.size = max(1, size)
        self.on_progress = on_progress
        self.total = 0
        self.done = 0
        self._pending: list[str] = []
        self._tasks: list[tuple[list[str], asyncio.Task[Found]]] = []

    def add(self, names: list[str], known: int = 0) -> None:
        """Names of one list page still to read, and how many of that page were known already."""
        self.total += len(names) + known
        self.done += known
        self._pending.extend(names)
        while len(self._pending) >= self.size:
            self._start(self._pending[:self.size])
            del self._pending[:self.size]
        self._report()

    def _report(self) -> None:
        if self.on_progress is not None:
            self.on_progress(self.done, self.total)

    def _start(self, chunk: list[str]) -> None:
        async def run() -> Found:
            found = await self.read(chunk)
            self.done += len(chunk)
            self._report()
            return found

        self._tasks.append((chunk, asyncio.create_task(run())))

    async def finish(self) -> tuple[Found, list[str]]:
        """Every name's detail, and the names whose GraphQL batch was refused; any other error is raised
        (the reads still running are cancelled first)."""
        if self._pending:
            self._start(self._pending)
            self._pending = []
        results = await asyncio.gather(*(task for _, task in self._tasks), return_exceptions=True)
        out: Found = {}
        refused: list[str] = []
        failure: BaseException | None = None
        for (chunk, _), result in zip(self._tasks, results, strict=True):
            if isinstance(result, GraphQLRefused):
                refused.extend(chunk)
            elif isinstance(result, BaseException):
                failure = failure or result
            else:
                out.update(result)
        self._tasks = []
        if failure is not None:
            raise failure
        return out, refused

    async def cancel(self) -> None:
        """Stop every read still running (the list failed, or the caller was cancelled)."""
        tasks = [task for _, task in self._tasks]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        self._tasks = []
