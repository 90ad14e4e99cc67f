"""The size column of the registry's repository lists (`:registry` and the project view's Registry tab): what
it says of each repository, and the reads behind it.

A repository's size (its unique blobs, `domain.registry_sizes`) costs a request or more each
(`api.registry_paths.repository_size`: GitLab's deduplicated size where it has one, else every tag's
detail), and a group on gitlab.com lists thousands of repositories. So a size is read only for the rows the
operator sees, the rows on screen and the cursor's, `SIZES_AT_ONCE` at a time; a row scrolled away before
its size came is read no more (its read is cancelled), and the cell says which it is: the figure, `…`
while it is read, `not read yet`, or `?` when it could not be read (the detail says why). What this
session already knows (`known_sizes`) costs nothing.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Any

from rich.text import Text
from textual.dom import DOMNode
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

from labdeck.api.errors import LabdeckError
from labdeck.api.models.registry import RegistryRepository
from labdeck.api.registry import RegistryService
from labdeck.api.registry_known import known_for
from labdeck.api.registry_paths import SIZES_AT_ONCE, repository_size
from labdeck.domain.registry_sizes import Figure, size_text
from labdeck.tui.context import context_of
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.workers import is_live

SETTLE = 0.15  # seconds the list rests before the rows it shows are read (a page key held down passes)
NOT_READ = "not read yet"
READING = "…"


class Sizes:
    """What the size column knows of each repository: its figure, or why it could not be read (`found`), and
    which are being read (`reading`)."""

    def __init__(self) -> None:
        self.found: dict[int, Figure | str] = {}
        self.reading: set[int] = set()

    def clear(self) -> None:
        self.found.clear()

    def figure(self, repo: RegistryRepository) -> Figure | None:
        found = self.found.get(repo.id)
        return found if isinstance(found, Figure) else None

    def cell(self, repo: RegistryRepository) -> Text:
        """The figure; `…` while it is read, `not read yet`, `?` when it could not be read."""
        found = self.found.get(repo.id)
        if isinstance(found, Figure):
            return Text(size_text(found))
        if found is not None:
            return Text("?", style="dim")
        return Text(READING if repo.id in self.reading else NOT_READ, style="dim")

    def words(self, repo: RegistryRepository) -> str:
        """The size for a repository's detail: the figure, or why there is none."""
        found = self.found.get(repo.id)
        if isinstance(found, Figure):
            return size_text(found)
        if found is not None:
            return f"could not be read: {found}"
        return "being read" if repo.id in self.reading else "not read yet (shown when its row is)"


def known_sizes(owner: DOMNode, repos: list[RegistryRepository], sizes: Sizes) -> list[RegistryRepository]:
    """Fill `sizes` with what this session already knows (no request); the repositories still to read."""
    client = context_of(owner).services.client
    known = known_for(client)
    instance = client.settings.base_url
    missing = []
    for repo in repos:
        record = known.get(instance, repo.id)
        if record is not None:
            sizes.found[repo.id] = record.size
        else:
            missing.append(repo)
    return missing


class SizeReader:
    """Reads the sizes of the rows `table()` shows, for `owner` (whose workers they are). Call `watch()` once
    mounted, `rows_set()` when rows were set, `soon()` when the cursor, filter or sort changed (scrolling is
    watched)."""

    def __init__(self, owner: Widget, sizes: Sizes, table: Callable[[], ResourceTable]) -> None:
        self.owner, self.sizes, self._table = owner, sizes, table
        self._workers: dict[int, Worker[None]] = {}
        self._gate: asyncio.Semaphore | None = None
        self._timer: Timer | None = None

    def _connected(self) -> bool:
        """Sizes are read while a session is connected (a lost one was said once, by the list's read)."""
        return context_of(self.owner).connected

    def watch(self) -> None:
        self.owner.watch(self._table(), "scroll_y", self._scrolled, init=False)

    def _scrolled(self, _old: float, _new: float) -> None:
        self.soon()

    def soon(self) -> None:
        """Read what is shown once the list has rested `SETTLE` seconds."""
        if self._timer is None:
            self._timer = self.owner.set_timer(SETTLE, self.now)

    def wanted(self) -> list[RegistryRepository]:
        """The rows on screen and the cursor's, whose size is not known."""
        table = self._table()
        rows: list[Any] = [*table.rows_on_screen(), table.cursor_row]
        found = self.sizes.found
        wanted = {row.id: row for row in rows if isinstance(row, RegistryRepository) and row.id not in found}
        return list(wanted.values())

    def rows_set(self) -> None:
        """New rows: those shown say at once that their sizes are read, and are read once the table is laid
        out with them (its scroll bars may take rows from the screen)."""
        if not self._connected():
            return
        table = self._table()
        for repo in self.wanted():
            self.sizes.reading.add(repo.id)
            self._redraw(table, repo.id)
        self.owner.call_after_refresh(self.now)

    def now(self) -> None:
        """Read the sizes of the rows shown now; stop the reads of rows no longer shown."""
        self._timer = None
        if not is_live(self.owner):
            return
        connected = self._connected()
        wanted = {repo.id: repo for repo in self.wanted()} if connected else {}
        table = self._table()
        for repo_id in [i for i in self._workers if i not in wanted]:
            self._workers.pop(repo_id).cancel()
            self.sizes.reading.discard(repo_id)
            self._redraw(table, repo_id)
        for repo_id in [i for i in self.sizes.reading if i not in wanted and i not in self._workers]:
            self.sizes.reading.discard(repo_id)  # said by `rows_set`, not shown once laid out
            self._redraw(table, repo_id)
        for repo_id, repo in wanted.items():
            if repo_id not in self._workers:
                self.sizes.reading.add(repo_id)
                # a function, not a coroutine: a read cancelled before it starts leaves none unawaited
                read: Any = partial(self._read, context_of(self.owner).services.registry, repo)
                self._workers[repo_id] = self.owner.run_worker(read, group="registry-sizes")
                self._redraw(table, repo_id)

    def stop(self) -> None:
        """Stop every read (the rows are read again)."""
        for worker in self._workers.values():
            worker.cancel()
        self._workers.clear()
        self.sizes.reading.clear()

    async def _read(self, service: RegistryService, repo: RegistryRepository) -> None:
        if self._gate is None:
            self._gate = asyncio.Semaphore(SIZES_AT_ONCE)
        try:
            async with self._gate:
                figure = await repository_size(service, repo)
            self.sizes.found[repo.id] = figure
        except LabdeckError as error:
            self.sizes.found[repo.id] = str(error)
        finally:  # (a read cancelled was let go by `now`, which may have started another for the row)
            if self._workers.get(repo.id) is get_current_worker():
                del self._workers[repo.id]
                self.sizes.reading.discard(repo.id)
        if is_live(self.owner):
            self._redraw(self._table(), repo.id)

    @staticmethod
    def _redraw(table: ResourceTable, repo_id: int) -> None:
        row = table.model.row_for(repo_id)
        if row is not None:
            table.replace_row(row)
