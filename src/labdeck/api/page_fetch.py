"""Walking list endpoints: pages on demand, and `fetch_all` (concurrent by page number when the total is
known, speculative windows of page numbers when GitLab omits it, or following `rel="next"`).

Every walk is guarded by a `PageWalk`: a page number, a `next` link or a page body met twice means the server
loops (it answers every page as page 1, or links a page to itself), and the walk stops with `PaginationLoop`.
At `max_pages` (the connection's limit, 10,000 by default) it stops with `PageLimit`, a `PaginationLoop`
that keeps what was read: `fetch_all` puts the items of the pages read (1 to max_pages) in it and notes the
stop in the request log. A walk never runs forever, and never throws away what it read.

A walk reads through a `PageSource` (the client, or the client decoding its pages its own way): it knows
nothing else of the client, and sends nothing itself.
"""

from __future__ import annotations

import asyncio
import struct
from collections.abc import AsyncIterator, Callable, Mapping
from typing import TYPE_CHECKING, Any, Literal, Protocol

from labdeck.api.errors import PageLimit, PaginationLoop
from labdeck.api.models.base import paused_gc
from labdeck.api.pagination import Page
from labdeck.domain.endpoints import ApiPath, RawPath

if TYPE_CHECKING:
    from labdeck.api.addressing import Addressing
    from labdeck.api.request_log import RequestLog
    from labdeck.api.settings import ConnectionSettings

Progress = Callable[[int, int | None], None]
OnItems = Callable[[list[Any]], None]
_DIGEST = struct.Struct("<qq")
FetchMode = Literal["auto", "concurrent", "sequential"]
_PAGE_KEYS = ("page", "per_page", "pagination")
# Trust `x-total-pages` for a concurrent fetch only up to this many pages (GitLab omits the totals above
# 10,000 records, so real values stay far below): a larger claim is fetched speculatively, never by
# starting that many requests at once.
MAX_KNOWN_PAGES = 1000


class PageSource(Protocol):
    """What a walk reads pages through: one page of a list (`get_page`), the connection's limits
    (`max_pages`, `concurrency`), how a path is named in messages, and the request log for a stop."""

    @property
    def settings(self) -> ConnectionSettings: ...

    @property
    def address(self) -> Addressing: ...

    @property
    def request_log(self) -> RequestLog: ...

    async def get_page(self, path: ApiPath, params: Mapping[str, Any] | None = None) -> Page: ...


def fingerprint(body: bytes) -> bytes:
    """A short digest of a page's raw body: two pages with the same one are the same page. Its length and
    Python's own hash of it (SipHash, keyed per process, so a server cannot aim at a collision): 65 us for
    a page of 100 issues, where BLAKE2b took 640 (6 us per issue, half the client's budget)."""
    return _DIGEST.pack(len(body), hash(body))


class PageWalk:
    """The guard of one walk over a list: refuses a page number, `next` link or page body it has already
    seen, and a page past `max_pages`, with a `PaginationLoop` that says what happened."""

    def __init__(self, where: str, max_pages: int) -> None:
        self.where = where
        self.max_pages = max(1, max_pages)
        self.count = 0
        self._links: set[str] = set()
        self._numbers: set[int] = set()
        self._prints: set[bytes] = set()

    def _stop(self, why: str) -> PaginationLoop:
        return PaginationLoop(f"GET {self.where}: {why} after {self.count:,} page(s); stopped following "
                              "pages (the list would never end or would be wrong)")

    def before(self, number: int | None = None) -> None:
        """Call before requesting another page (`number`: the page number asked for, if any)."""
        if self.count >= self.max_pages or (number is not None and number > self.max_pages):
            raise self.limit()

    def limit(self) -> PageLimit:
        return PageLimit(f"GET {self.where}: stopped at the limit of {self.max_pages:,} pages (max_pages); "
                         "narrow the request or raise max_pages for this instance", self.max_pages)

    def follow(self, url: str) -> None:
        """Call before following a `next` link."""
        if url in self._links:
            raise self._stop("the server's next link points to a page already fetched")
        self._links.add(url)
        self.before()

    def add(self, page: Page, number: int | None = None) -> None:
        """Record a page received (`number`: the page number it was asked for, if any)."""
        self.count += 1
        if number is not None and page.page is not None and page.page != number:
            raise self._stop(f"asked for page {number}, the server sent page {page.page}")
        if page.page is not None:
            if page.page in self._numbers:
                raise self._stop(f"the server sent page {page.page} again")
            self._numbers.add(page.page)
        if page.fingerprint is not None and page.items:
            if page.fingerprint in self._prints:
                raise self._stop("the server sent a page identical to an earlier one")
            self._prints.add(page.fingerprint)


def new_walk(source: PageSource, path: str) -> PageWalk:
    """The guard for a walk over `path` with the connection's `max_pages`."""
    return PageWalk(source.address.where(path), source.settings.max_pages)


def _base_params(params: Mapping[str, Any] | None) -> dict[str, Any]:
    return {k: v for k, v in (params or {}).items() if k not in _PAGE_KEYS}


async def iter_pages(source: PageSource, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                     per_page: int = 100, keyset: bool = False) -> AsyncIterator[Page]:
    """Yield pages one by one, following `rel="next"` (or `x-next-page` when there is no `Link`)."""
    query = _base_params(params)
    query["per_page"] = per_page
    if keyset or (params or {}).get("pagination") == "keyset":
        keyset = True
        query["pagination"] = "keyset"
        query.setdefault("order_by", "id")  # the ordering GitLab supports keyset pagination with
    walk = new_walk(source, path)
    walk.before()
    page = await source.get_page(path, query)
    walk.add(page, query.get("page"))
    while True:
        yield page
        if not page.items:
            return
        if page.next_url:
            walk.follow(page.next_url)  # a server that links to itself must not loop us forever
            page = await source.get_page(RawPath(page.next_url))
            walk.add(page)
        elif page.next_page and not keyset:
            if page.next_page <= query.get("page", 1):  # `x-next-page` must move forward, or we loop
                raise walk._stop(f"the server's next page ({page.next_page}) does not move forward")
            query["page"] = page.next_page
            walk.before(page.next_page)
            page = await source.get_page(path, query)
            walk.add(page, query["page"])
        else:
            return


class _Sink:
    """Where the pages' items go, in page order: collected into `items`, or, with `on_items`, handed on
    as soon as every page before them has been (nothing kept: `labdeck api --paginate` prints them)."""

    def __init__(self, on_items: OnItems | None) -> None:
        self.items: list[Any] = []
        self.count = 0
        self._on_items = on_items
        self._held: dict[int, list[Any]] = {}
        self._next = 1

    def put(self, number: int, items: list[Any]) -> None:
        """The items of page `number` (1-based; every number from 1 comes once, in any order)."""
        self._held[number] = items
        while self._next in self._held:
            ready = self._held.pop(self._next)
            self._next += 1
            self.count += len(ready)
            if self._on_items is None:
                self.items.extend(ready)
            else:
                self._on_items(ready)

    def drop_beyond(self, end: int) -> None:
        """Forget held pages after the last one (a speculative fetch asked for more than there was)."""
        for number in [n for n in self._held if n > end]:
            del self._held[number]


def _report(on_progress: Progress | None, done: int, total: int | None) -> None:
    if on_progress is not None:
        on_progress(done, total)


async def _cancel_all(tasks: list[asyncio.Task[Page]]) -> None:
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)


async def _sequential(source: PageSource, path: ApiPath, params: Mapping[str, Any] | None, per_page: int,
                      keyset: bool, on_progress: Progress | None, sink: _Sink, number: int = 1) -> None:
    async for page in iter_pages(source, path, params, per_page=per_page, keyset=keyset):
        sink.put(number, page.items)
        number += 1
        _report(on_progress, sink.count, page.total)


async def _known_total(source: PageSource, path: ApiPath, query: dict[str, Any], first: Page,
                       on_progress: Progress | None, sink: _Sink) -> None:
    """All pages 2..total_pages at once; the client's semaphore bounds how many are in flight."""
    total_pages = first.total_pages or 1
    done = len(first.items)
    walk = new_walk(source, path)
    walk.add(first, 1)
    last = min(total_pages, walk.max_pages)  # pages past the limit are not asked for

    async def one(number: int) -> Page:
        nonlocal done
        page = await source.get_page(path, {**query, "page": number})
        walk.add(page, number)
        done += len(page.items)
        sink.put(number, page.items)
        _report(on_progress, done, first.total)
        return page

    sink.put(1, first.items)
    tasks = [asyncio.create_task(one(n)) for n in range(2, last + 1)]
    try:
        await asyncio.gather(*tasks)
    except BaseException:
        await _cancel_all(tasks)
        raise
    if last < total_pages:
        raise walk.limit()


async def _speculative(source: PageSource, path: ApiPath, query: dict[str, Any], first: Page, size: int,
                       on_progress: Progress | None, sink: _Sink) -> None:
    """Unknown total: keep `concurrency` page numbers in flight until a short, empty or last page."""
    window = max(1, source.settings.concurrency)
    sink.put(1, first.items)
    pending: dict[asyncio.Task[Page], int] = {}
    end: int | None = None
    next_number = 2
    done = len(first.items)
    walk = new_walk(source, path)
    walk.add(first, 1)
    try:
        while True:
            while end is None and len(pending) < window and next_number <= walk.max_pages:
                task = asyncio.create_task(source.get_page(path, {**query, "page": next_number}))
                pending[task] = next_number
                next_number += 1
            if not pending:
                if end is None:
                    walk.before(next_number)  # past max_pages and the list has not ended: stop, say so
                break
            finished, _ = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
            for task in finished:
                number = pending.pop(task)
                page = task.result()
                if end is None or number <= end:
                    walk.add(page, number)
                if len(page.items) < size or not page.has_next:
                    end = number if end is None else min(end, number)
                    sink.drop_beyond(end)
                if end is None or number <= end:
                    done += len(page.items)
                    sink.put(number, page.items)
            if end is not None:
                beyond = [t for t, n in pending.items() if n > end]
                for task in beyond:
                    del pending[task]
                await _cancel_all(beyond)
            _report(on_progress, done, None)
    except BaseException:
        await _cancel_all(list(pending))
        raise
    _report(on_progress, sink.count, sink.count)


async def fetch_all(source: PageSource, path: ApiPath, params: Mapping[str, Any] | None = None, *,
                    on_progress: Progress | None = None, per_page: int = 100, mode: FetchMode = "auto",
                    keyset: bool = False, first: Page | None = None,
                    on_items: OnItems | None = None) -> list[Any]:
    """Every item of a list endpoint, in order, each once (for a collection that does not change).
    `first`: page 1 (of `per_page` items, with these `params`) when the caller already has it.
    `on_items`: called with each page's items, in page order, as soon as they can be (the result is then
    empty: nothing is kept). At the page limit, `PageLimit` carries the items read (pages 1 to
    `max_pages`) and their count. The cyclic
    garbage collector is paused meanwhile (`paused_gc`: the decoded pages pile up into one large acyclic
    structure, and collecting over it again and again costs more than decoding it)."""
    with paused_gc():
        sink = _Sink(on_items)
        try:
            await _fetch_all(source, path, params, on_progress=on_progress, per_page=per_page, mode=mode,
                             keyset=keyset, first=first, sink=sink)
        except PageLimit as limit:  # what was read is kept, and the stop is said
            limit.items, limit.count = sink.items, sink.count
            source.request_log.note(f"GET {source.address.where(path)}", f"{limit.partial}: the list goes on")
            raise
        return sink.items


async def _fetch_all(source: PageSource, path: ApiPath, params: Mapping[str, Any] | None, *,
                     on_progress: Progress | None, per_page: int, mode: FetchMode, keyset: bool,
                     first: Page | None, sink: _Sink) -> None:
    if keyset or mode == "sequential" or (params or {}).get("pagination") == "keyset":
        await _sequential(source, path, params, per_page, keyset, on_progress, sink)
        return
    query = _base_params(params)
    query["per_page"] = per_page
    if first is None:
        first = await source.get_page(path, {**query, "page": 1})
    _report(on_progress, len(first.items), first.total)
    if not first.has_next or not first.items:
        sink.put(1, list(first.items))
        return
    if mode == "auto" and first.page is None and first.next_page is None:
        # No offset headers at all: page numbers may mean nothing here, so follow the links.
        sink.put(1, list(first.items))
        assert first.next_url is not None
        walk, page, total, number = new_walk(source, path), first, first.total, 1
        walk.add(first)
        while page.next_url and page.items:
            walk.follow(page.next_url)
            page = await source.get_page(RawPath(page.next_url))
            walk.add(page)
            number += 1
            sink.put(number, page.items)
            _report(on_progress, sink.count, total)
        return
    if first.total_pages is not None and 2 <= first.total_pages <= MAX_KNOWN_PAGES:
        await _known_total(source, path, query, first, on_progress, sink)
        return
    size = first.per_page or len(first.items)
    await _speculative(source, path, query, first, size, on_progress, sink)
