"""A list read on demand, whatever the instance's size (issue 25): `WindowedList`.

The first page comes at once (`start`); a page is read when someone asks for a row in it (`ensure`), with
a page or two after it (`readahead`: concurrently when the server gave totals, one after the other when
it did not). Pages are found by number on offset listings (so any page can be read again), and by
following the server's `next` links otherwise (keyset pagination: the link to each page is kept, a few
bytes, so a dropped page can be read again; an instance that refuses keyset pagination for the listing
(405) is read by offset instead). At most `max_rows` rows are held: past the ceiling the held
pages farthest from the last one asked for are dropped (`on_drop` says which), and read again when asked.

Counts are honest: `total` is the server's `x-total` (None above 10,000 records, as GitLab sends none),
`known` the rows seen so far, `exhausted` whether the last page has been seen, and `count_text` says
"1-100 of 1,204,331", "1-100 of 20,000" or "1-100 of the first 20,000 (more on the server)", never a count
that looks complete when it is not. `read_all` reads everything as an explicit, cancellable operation
with progress (the ceiling is lifted for it).

The first page of every window goes to the client's list cache as the start of the list (`set_first`:
never served as the whole list); with the cache persisted, a relaunch paints it at once (`cached_first`)
while the listing is read again.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Mapping
from functools import partial
from typing import Any, Generic, TypeVar

from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError
from labdeck.api.pagination import Page
from labdeck.domain.endpoints import ApiPath, RawPath

T = TypeVar("T")
Parse = Callable[[list[Any]], list[T]]
Progress = Callable[[int, int | None], None]
FROM_SETTINGS = 0  # max_rows: the client's `ConnectionSettings.max_list_rows` (10,000 by default)
_PAGING = ("page", "per_page", "cursor", "id_after", "id_before")


class WindowedList(Generic[T]):
    """The rows of one listing (`path` with `params`), read a page at a time as they are asked for."""

    def __init__(self, client: ApiClient, path: ApiPath, params: Mapping[str, Any] | None, parse: Parse[T], *,
                 decode: body.PageDecode | None = None, per_page: int = 100,
                 max_rows: int | None = FROM_SETTINGS, readahead: int = 2,
                 on_drop: Callable[[int, list[T]], None] | None = None) -> None:
        self.client, self.path, self.parse, self.decode = client, path, parse, decode
        self.params = {k: v for k, v in (params or {}).items() if k not in _PAGING and v is not None}
        self.per_page = per_page
        self.max_rows = client.settings.max_list_rows if max_rows == FROM_SETTINGS else max_rows
        self.readahead = readahead
        self.on_drop = on_drop
        self.pages: dict[int, list[T]] = {}  # held pages by index (0 is the first)
        self.sizes: dict[int, int] = {}  # rows of every page seen, held or not
        self.links: dict[int, str] = {}  # the `next` link that reads each page (link mode)
        self.offset = True  # pages by number (x-page sent); False: following links (keyset)
        self.total: int | None = None
        self.total_pages: int | None = None
        self.end: int | None = None  # index of the last page, once seen
        # The listing goes on past `max_pages` (the client's limit on the pages of one list): `end` is the
        # last page the limit lets us read, not the listing's. A cut list is never complete.
        self.cut = False
        self.focus = 0  # the page last asked for: dropping starts farthest from it
        self.requests = 0  # pages requested (tests and benchmarks count them)
        self.in_flight = self.peak_in_flight = 0
        self._running: dict[int, asyncio.Task[list[T]]] = {}
        self._readahead: set[asyncio.Task[Any]] = set()

    # -- what is known ---------------------------------------------------------------------------------
    @property
    def known(self) -> int:
        """Rows known to exist: every page up to the furthest seen (pages before it are full)."""
        if not self.sizes:
            return 0
        last = max(self.sizes)
        return last * self.per_page + self.sizes[last]

    @property
    def exhausted(self) -> bool:
        """The last page has been seen: `known` is every row of the listing."""
        return self.end is not None or (self.total is not None and self.known >= self.total)

    @property
    def all_held(self) -> bool:
        """Every row that will be read is held (the listing's, or a cut list's first ones)."""
        return self.exhausted and all(i in self.pages for i in range(self.last_page + 1))

    @property
    def complete(self) -> bool:
        """Every row of the listing is held: the list can be filtered and sorted locally (never a list cut
        at `max_pages`: its rows are only the first of the listing's)."""
        return self.all_held and not self.cut

    @property
    def most_rows(self) -> int:
        """The most rows the page limit lets this list read (`max_pages` pages)."""
        return self.client.settings.max_pages * self.per_page

    @property
    def will_be_cut(self) -> bool:
        """Reading everything stops at `max_pages` before the listing ends: it has (`cut`), or the server's
        total is more than the limit reads."""
        return self.cut or (self.total is not None and self.total > self.most_rows)

    @property
    def last_page(self) -> int:
        if self.end is not None:
            return self.end
        if self.total_pages is not None:
            return max(self.total_pages - 1, 0)
        return max(self.sizes, default=0)

    @property
    def held_rows(self) -> int:
        return sum(len(rows) for rows in self.pages.values())

    def count_text(self, first: int | None = None, last: int | None = None) -> str:
        """'1-100 of 1,204,331' (a total), '… of 20,000' (all seen), '… of the first 20,000 (more on the
        server)' (neither), '… of the first 500 of 2,500, cut at max_pages' (a list cut at the page limit:
        `first`/`last` are 1-based row numbers on screen, left out when None."""
        shown = f"{first:,}-{last:,} of " if first is not None and last is not None else ""
        if self.cut:
            if self.total is not None:
                return f"{shown}the first {self.known:,} of {self.total:,}, cut at max_pages"
            return f"{shown}the first {self.known:,}, cut at max_pages (more on the server)"
        if self.total is not None:
            return f"{shown}{self.total:,}"
        if self.exhausted:
            return f"{shown}{self.known:,}"
        return f"{shown}the first {self.known:,} (more on the server)"

    def row(self, index: int) -> T | None:
        """Row `index` when its page is held, else None."""
        rows = self.pages.get(index // self.per_page)
        at = index % self.per_page
        return rows[at] if rows is not None and at < len(rows) else None

    def held(self) -> list[tuple[int, list[T]]]:
        """The held pages in order, as `(index of their first row, rows)`."""
        return [(i * self.per_page, self.pages[i]) for i in sorted(self.pages)]

    # -- reading ---------------------------------------------------------------------------------------
    async def start(self) -> list[T]:
        """The first page (read now)."""
        return await self.ensure(0)

    async def ensure(self, index: int, *, readahead: bool = True) -> list[T]:
        """The rows of the page holding row `index` (read if not held, with the pages before it when only
        links lead there), a page or two after it started in the background. Past the end: []."""
        page = max(index, 0) // self.per_page
        self.focus = page
        rows = await self._page(page)
        if readahead:
            self._read_ahead(page)
        self._trim()
        return rows

    def _read_ahead(self, page: int) -> None:
        wanted = [p for p in range(page + 1, page + 1 + self.readahead)
                  if p not in self.pages and p not in self._running and (self.end is None or p <= self.end)]
        if not wanted:
            return
        if self.offset and self.total_pages is not None:  # totals: every page at once
            for p in wanted:
                if p < self.total_pages:
                    self._background(self._chain([p]))
        else:  # no totals, or links only: one after the other
            self._background(self._chain(wanted))

    async def _chain(self, wanted: list[int]) -> None:
        for p in wanted:
            if self.end is not None and p > self.end:
                return
            await self._page(p)  # (trimmed to the ceiling as it lands: `_arrived`)

    def _background(self, work: Any) -> None:
        task = asyncio.ensure_future(work)
        self._readahead.add(task)
        task.add_done_callback(_finished(self._readahead))

    async def _page(self, page: int) -> list[T]:
        held = self.pages.get(page)
        if held is not None:
            return held
        if self.end is not None and page > self.end:
            return []
        running = self._running.get(page)
        if running is None:
            running = asyncio.ensure_future(self._read(page))
            self._running[page] = running
            running.add_done_callback(partial(self._forget, page))
        return await asyncio.shield(running)

    def _forget(self, page: int, _task: asyncio.Future[Any]) -> None:
        self._running.pop(page, None)

    async def _read(self, page: int) -> list[T]:
        limit = self.client.settings.max_pages
        if page >= limit:  # never read: the last page the limit allows says whether the listing goes on
            last = limit - 1
            if last >= 0 and (self.end is None or self.end > last):
                await self._page(last)
                if self.end is None or self.end > last:  # it had a next page (or a total says more)
                    self.cut = True
                    self.end = last
            return []
        if page > 0 and 0 not in self.sizes:
            await self._page(0)  # the first page says how the others are found (numbers or links)
        if page == 0:
            try:
                result = await self._get(self.path, {**self.params, "per_page": self.per_page})
            except ApiError as exc:  # an instance without keyset pagination here: offset pages then
                if exc.status != 405 or self.params.get("pagination") != "keyset":
                    raise
                self.params.pop("pagination")
                result = await self._get(self.path, {**self.params, "per_page": self.per_page})
        elif self.offset:
            result = await self._get(self.path, {**self.params, "per_page": self.per_page, "page": page + 1})
        else:
            link = self.links.get(page)
            if link is None:
                await self._page(page - 1)  # links only: the page before names this one
                link = self.links.get(page)
                if link is None:  # the page before was the last
                    return []
            result = await self._get(RawPath(link), None)
        return self._arrived(page, result)

    async def _get(self, path: ApiPath, params: Mapping[str, Any] | None) -> Page:
        self.requests += 1
        self.in_flight += 1
        self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
        try:
            return await self.client.get_page(path, params, decode=self.decode)
        finally:
            self.in_flight -= 1

    def _arrived(self, page: int, result: Page) -> list[T]:
        if page == 0:
            self.offset = result.page is not None  # GitLab sends x-page only on offset pages
            self.total, self.total_pages = result.total, result.total_pages
        rows = self.parse(result.items)
        if page == 0 and rows:
            self.client.cache.set_first(self.key(), rows)
        if not rows and page > 0:
            self.end = page - 1 if self.end is None else min(self.end, page - 1)
            return rows
        self.sizes[page] = len(rows)
        self.pages[page] = rows
        if result.next_url and result.next_url != self.links.get(page):
            self.links[page + 1] = result.next_url
        if not result.has_next:
            self.end = page if self.end is None else min(self.end, page)
        # A page that lands after `read_all` was cancelled (its reads are shielded and go on) must not lift
        # the ceiling back up: what arrives is trimmed to it at once.
        self._trim()
        return rows

    def _trim(self) -> None:
        """Drop the held pages farthest from the focus until the rows held fit the ceiling."""
        if self.max_rows is None:
            return
        held = self.held_rows
        while held > self.max_rows and len(self.pages) > 1:
            far = max((p for p in self.pages if p != self.focus), key=lambda p: abs(p - self.focus))
            rows = self.pages.pop(far)
            held -= len(rows)
            if self.on_drop is not None:
                self.on_drop(far * self.per_page, rows)

    # -- everything ------------------------------------------------------------------------------------
    async def read_all(self, on_progress: Progress | None = None) -> list[T]:
        """Every row, read now (the ceiling lifted for this list): concurrently when the server gave
        totals, else page after page. Cancel the calling task to stop; the ceiling then applies again."""
        ceiling, self.max_rows = self.max_rows, None
        try:
            await self.ensure(0, readahead=False)
            if self.offset and self.total_pages is not None:
                missing = [p for p in range(self.total_pages) if p not in self.pages]
                done = 0

                async def one(p: int) -> None:
                    nonlocal done
                    await self._page(p)
                    done += 1
                    if on_progress is not None:
                        on_progress(self.held_rows, self.total)

                await asyncio.gather(*(one(p) for p in missing))
            else:
                page = 0
                while self.end is None or page <= self.end:
                    await self._page(page)
                    page += 1
                    if on_progress is not None:
                        on_progress(self.held_rows, self.total)
        except BaseException:
            self.max_rows = ceiling
            self._trim()
            raise
        return [row for _, rows in self.held() for row in rows]

    async def iter_pages(self) -> AsyncIterator[list[T]]:
        """Every page in order, read as needed and not kept beyond the ceiling (exports)."""
        page = 0
        while self.end is None or page <= self.end:
            rows = await self.ensure(page * self.per_page, readahead=True)
            if not rows:
                return
            yield rows
            page += 1

    def key(self) -> Any:
        """The list cache's key of this listing (its parameters, paging left out)."""
        return self.client.cache_key(self.path, self.params)

    def cached_first(self) -> list[T] | None:
        """The first page last seen of this listing (this run, or a persisted cache's), stale or not, to
        paint at once while it is read again; None when the cache knows none."""
        rows = self.client.cache.first_rows(self.key())
        return self.parse(rows[:self.per_page]) if rows else None

    def remember(self, params: Mapping[str, Any] | None = None) -> bool:
        """Put a complete list in the client's list cache under `params` (default: its own), what a
        revisit within the TTL reads; True when it was complete. A partial list is never cached."""
        if not self.complete:
            return False
        rows = [row for _, rows in self.held() for row in rows]
        key = self.client.cache_key(self.path, self.params if params is None else params)
        self.client.cache.set(key, rows)
        return True

    def cancel(self) -> None:
        """Stop the reads running in the background (a screen that closes)."""
        for task in [*self._readahead, *self._running.values()]:
            task.cancel()


def _finished(tasks: set[asyncio.Task[Any]]) -> Callable[[asyncio.Task[Any]], None]:
    def done(task: asyncio.Task[Any]) -> None:
        tasks.discard(task)
        if not task.cancelled():
            task.exception()  # read it: a failed read-ahead is read again when the page is asked for
    return done
