"""A list read on demand in a `ResourceView` (issue 25): `ListFeed` joins an `api.windowed.WindowedList`
to the view's table, whatever the instance's size.

The first page is shown as soon as it arrives. A list whose server total fits the row ceiling is then read
whole (concurrently) and behaves as every list did: complete, filtered and sorted locally. Any other list is
partial: more pages are read as the cursor nears the end of what is loaded (`LoadMore`); the rows held stay
under the ceiling (pages dropped from the top are read again when the cursor comes back); the filter box
and the sort go to the server (`search`, `order_by`/`sort` through the screen's `reload`), and the footer
says so, with an honest count ("1-300 of the first 300 (more on the server)"). `G` on a partial list asks
before reading everything, then reads it as a job with progress that can be cancelled.
"""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable, Hashable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.content import Content

from labdeck.api.errors import LabdeckError
from labdeck.api.windowed import WindowedList
from labdeck.tui.jobs import counted
from labdeck.tui.widgets.resource_view import ResourceView

if TYPE_CHECKING:
    from labdeck.tui.jobs import Job
    from labdeck.tui.widgets.resource_table import ResourceTable

T = TypeVar("T")
# The screen's way to list again with a server-side filter text and order (`None`: its default order).
Reload = Callable[[str, tuple[str, bool] | None], None]
BACK_THRESHOLD = 20  # rows from the top of what is loaded: read the page before it again
DRY_PAGES = 10  # pages in a row with no row kept: stop reading by itself (G reads on)
_FEEDS: weakref.WeakKeyDictionary[Any, ListFeed[Any]] = weakref.WeakKeyDictionary()


def feed_of(table: ResourceTable) -> ListFeed[Any] | None:
    """The on-demand feed of `table`, if its list is read on demand (exports and bulk actions ask it how
    much of the listing the loaded rows are)."""
    return _FEEDS.get(table)


class ListFeed(Generic[T]):
    """The on-demand list shown in `view`; `noun` names its rows ("issues"), `orders` maps column keys to
    the server's `order_by` values (columns not there sort the loaded rows only, and say so)."""

    def __init__(self, view: ResourceView, noun: str, reload: Reload, *,
                 orders: dict[str, str] | None = None) -> None:
        self.view, self.table = view, view.table
        self.noun, self.reload, self.orders = noun, reload, dict(orders or {})
        self.window: WindowedList[T] | None = None
        self.start = 0  # index (in the listing) of the first row read into the table
        self.end = 0  # index after the last row read into the table
        self.keep: Callable[[T], bool] | None = None  # rows shown of those read (e.g. a user condition)
        self.dry = 0  # pages read in a row of which `keep` kept nothing
        self.search = ""  # the filter text the server applied to this window
        self.order: tuple[str, bool] | None = None  # the server order of this window
        self.note = ""  # said after the count ("sorted by Title on the server")
        self.cached = False  # the rows shown are the cache's first page, until the listing's arrives
        self.table.count_source = self.count_text
        self.table.on_last = self.on_last
        self.table.on_sort = self.on_sort
        self.table.pace_collections(0)
        _FEEDS[self.table] = self

    # -- state ----------------------------------------------------------------------------------------
    @property
    def partial(self) -> bool:
        return self.window is not None and not self.window.complete

    def count_text(self) -> str | None:
        """The footer's first part: the loaded rows against what the server has (None: a complete list,
        counted as every list is)."""
        window, model = self.window, self.table.model
        loaded, shown = model.row_count, model.visible_count
        if self.cached:
            return f"{self.noun}: the first {loaded:,} last seen, reading the list again"
        if window is None or window.complete:
            if not self.search and not self.note:
                return None
            text = counted(loaded, "row") if shown == loaded else f"{shown:,} of {counted(loaded, 'row')}"
        else:
            read = self.end - self.start
            text = f"{self.noun} {window.count_text(self.start + 1 if read else 0, self.end)}"
            if shown != read:
                text += f" · {shown:,} shown"
            if self.dry >= DRY_PAGES:
                text += f" · none in the last {DRY_PAGES} pages read (G reads on)"
        if self.search:
            text += f" · search “{self.search}” on the server"
        return text + (f" · {self.note}" if self.note else "")

    def _update(self) -> None:
        window = self.window
        unread = window is not None and (not window.exhausted or self.end < window.known)
        self.table.has_more = unread and self.dry < DRY_PAGES
        # the filter box goes to the server while the list is partial, or while the server filtered it
        self.view.server_filter = self.filter if (self.partial or self.search) else None
        self.table.post_message(self.table.StateChanged(self.table))

    # -- loading --------------------------------------------------------------------------------------
    def show_first(self, window: WindowedList[T], rows: list[T], *, search: str = "",
                   order: tuple[str, bool] | None = None) -> None:
        """A new window's first page, shown now (replacing the rows)."""
        if self.window is not None and self.window is not window:
            self.window.cancel()
        self.window, self.start, self.end, self.search, self.order = window, 0, len(rows), search, order
        self.dry, self.cached = 0, False
        window.on_drop = self._dropped
        self.table.set_rows(self._kept(rows))
        self._update()

    def show_cached(self, window: WindowedList[T]) -> bool:
        """Paint the first page last seen of `window`'s listing (the list cache, persisted across runs)
        while its first page is read again (`show_first` then replaces it); True when there was one."""
        rows = window.cached_first()
        if not rows or self.table.model.row_count:
            return False
        self.cached = True
        self.table.set_rows(self._kept(rows))
        self.table.post_message(self.table.StateChanged(self.table))
        return True

    def _kept(self, rows: list[T]) -> list[T]:
        keep = self.keep
        return rows if keep is None else [row for row in rows if keep(row)]

    def show_held(self) -> None:
        """Show the rows held again (after `keep` changed on a complete list)."""
        window = self.window
        if window is not None:
            held = window.held()
            self.start = held[0][0] if held else 0
            rows = [row for _, page in held for row in page]
            self.end = self.start + len(rows)
            self.table.set_rows(self._kept(rows))
            self._update()

    def whole(self) -> None:
        """The table holds a whole list from elsewhere (the list cache): nothing is read on demand."""
        if self.window is not None:
            self.window.cancel()
        self.window, self.start, self.end, self.search, self.order, self.note = None, 0, 0, "", None, ""
        self.cached = False
        self._update()

    async def complete_if_small(self, window: WindowedList[T]) -> bool:
        """Read the rest at once when the server's total fits the ceiling (a list as it always was), and
        show it whole if this feed shows `window`; True when the list is complete."""
        if not window.complete and window.total is not None and window.max_rows is not None \
                and window.total <= window.max_rows:
            rows = await window.read_all()
            if window is self.window:
                self.start, self.end = 0, len(rows)
                self.table.set_rows(self._kept(rows))
        if window is self.window:
            self._update()
        return window.complete

    async def more(self) -> None:
        """The next page after the loaded rows (the table's `LoadMore`)."""
        window = self.window
        if window is None or (window.exhausted and self.end >= window.known):
            self._update()
            return
        rows = await window.ensure(self.end)
        if window is self.window:
            self.end += len(rows)
            kept = self._kept(rows)
            self.dry = 0 if kept else self.dry + 1
            self.table.append_rows(kept)
            self._update()

    async def back(self) -> None:
        """The page before the loaded rows, read again (the cursor came back to the top)."""
        window = self.window
        if window is None or self.start == 0:
            return
        before = self.start - window.per_page
        rows = await window.ensure(before, readahead=False)
        if window is self.window and rows:
            self.start = before
            self.table.set_rows([*self._kept(rows), *self.table.rows])  # the cursor stays on its row
            self._update()

    def read_more(self) -> None:
        """`more()` in a worker of the table (the screen's `LoadMore` handler calls this)."""
        self._run(self.more)

    def cursor_moved(self) -> None:
        """Call on each `RowHighlighted`: near the top of what is held, the page before is read again."""
        if self.near_top():
            self._run(self.back)

    def _run(self, work: Callable[[], Awaitable[None]]) -> None:
        """`work` in the table's one list-feed worker; a failure is said where the rows would be (`r`
        reloads). The worker gets a function, not a coroutine: one replaced before it starts leaves no
        coroutine unawaited."""
        async def guarded() -> None:
            try:
                await work()
            except LabdeckError as exc:
                self.table.show_load_error(str(exc))

        worker: Any = guarded  # (Textual's hint cannot infer the result type of a coroutine function)
        self.table.run_worker(worker, group="list-feed", exclusive=True)

    def near_top(self) -> bool:
        """The cursor is near the first loaded row and rows before it were dropped."""
        return self.start > 0 and self.table.cursor_index < BACK_THRESHOLD

    def _dropped(self, first: int, rows: list[T]) -> None:
        """A page left the window: its rows leave the table (only pages at the top are in it)."""
        if first != self.start:
            return
        self.table.remove_rows([self.table.model.key_of(row) for row in rows])
        self.start = first + len(rows)

    # -- server-side filter and sort ------------------------------------------------------------------
    def filter(self, text: str) -> None:
        """The filter box of a partial list: list again with the text as the server's search."""
        text = text.strip()
        if text != self.search:
            self.reload(text, self.order)

    def on_sort(self) -> None:
        """A sort chosen on a partial list: the server orders it when it can, else only the loaded rows
        are sorted and the footer says so."""
        model = self.table.model
        if not self.partial and not self.search and self.order is None:
            self.note = ""
            return
        column = model.sort_column
        if column is None:
            self.note = ""
            if self.order is not None:
                self.reload(self.search, None)
            return
        order_by = self.orders.get(column)
        label = next((c.label for c in model.columns if c.key == column), column)
        if order_by is None:
            self.note = f"{label}: only the loaded rows are sorted (G reads them all)"
            self._update()
            return
        self.note = f"sorted by {label} on the server"
        wanted = (order_by, model.sort_reverse)
        if wanted != self.order:
            self.reload(self.search, wanted)

    # -- reading everything ---------------------------------------------------------------------------
    def on_last(self) -> bool:
        """`G`: on a partial list, ask before reading everything; True when handled here. A list cut at
        `max_pages` with every row it can read held says so, and the cursor goes to its last row."""
        if not self.partial:
            return False
        from labdeck.tui.screens.confirm import ConfirmScreen

        window = self.window
        assert window is not None
        if window.cut and window.all_held:
            self.table.notify(f"{self.noun} {window.count_text()}: no more can be read (raise max_pages for "
                              "this instance)", severity="warning", markup=False)
            return False
        message = Content.from_markup(
            "Read every one of $noun? The server has $count. They are read as a task you can cancel "
            "(:tasks); the rows then stay in memory.$cut", noun=self.noun, count=window.count_text(),
            cut=f" max_pages stops it at the first {window.most_rows:,}." if window.will_be_cut else "")

        def answered(yes: bool | None) -> None:
            if yes:
                self.read_everything()

        self.table.app.push_screen(ConfirmScreen(f"Read all {self.noun}", message,
                                                 confirm_label="Read all", changes=False), answered)
        return True

    def coverage(self, count: int, which: str) -> str:
        """How much of the listing `count` rows are, for exports and bulk actions: "the 300 loaded issues of
        about 1,204,331", "the 5 marked issues of the first 20,000 (more on the server)"."""
        window = self.window
        rows = f"the {count:,} {which} {self.noun}"
        if window is None or window.complete:
            return rows
        if window.total is not None:
            return f"{rows} of about {window.total:,}"
        return f"{rows} of {window.count_text()}"

    def matching_text(self) -> str:
        """What "all matching" covers: "all about 1,204,331 issues", "all issues (more than 20,000)", or
        where the page limit stops it, "the first 10,000 of about 1,204,331 issues (cut at max_pages …)"."""
        window = self.window
        if window is not None and window.will_be_cut:
            first = window.known if window.cut else window.most_rows
            of = f" of about {window.total:,}" if window.total is not None else ""
            return f"the first {first:,}{of} {self.noun} (cut at max_pages: more on the server)"
        if window is None or window.total is None:
            known = window.known if window is not None else 0  # (a cut met on the way: the task says so)
            return f"all {self.noun} (more than {known:,}; read until the end)"
        return f"all about {window.total:,} {self.noun}"

    async def read_rest(self, job: Job) -> list[T]:
        """Every row of the listing (the ones `keep` keeps), read now with progress in `job` (cancel the job
        to stop); the table then shows them all, complete. Exports and bulk actions over "all matching"
        read first, then act: a change acting while the pages are read by offset would move the rows
        still to come (closing issues of a listing of open ones) and skip some."""
        window = self.window
        if window is None:
            return list(self.table.rows)
        table = self.table
        job.set_total(window.total)

        def progress(done: int, total: int | None) -> None:
            job.advance(done - job.done)

        rows = await window.read_all(progress)
        if window.cut:  # what was read is the first part of the listing only: the task says so
            job.set_caveat(f"cut at max_pages: the first {window.known:,} {self.noun} read, "
                           "more on the server")
        kept = self._kept(rows)
        if window is self.window and table.is_attached:
            self.start, self.end = 0, len(rows)
            table.set_rows(kept)
            self._update()
        return kept

    def read_everything(self) -> Any:
        """Read the rest of the list as a job (progress, cancel in `:tasks`), then show it whole."""
        window = self.window
        if window is None:
            return None
        table, noun = self.table, self.noun

        async def read(job: Job) -> None:
            await self.read_rest(job)
            if window is self.window and table.is_attached:
                table.move_cursor(table.model.visible_count - 1)
            job.set_summary(f"{window.held_rows:,} {noun} read")

        return table.app.start_job(f"Read all {noun}", read, total=window.total)  # type: ignore[attr-defined]


class EarlyWindow(Generic[T]):
    """A window whose first page is asked for while its screen is still being built (a screen's
    `__init__`, inside the app): the request is on its way while Textual mounts the widgets, and the
    loading worker takes both over (`take`) when they are for the listing it wants (`key`)."""

    def __init__(self, window: WindowedList[T], key: Hashable) -> None:
        self.window, self.key = window, key
        self.task: asyncio.Task[list[T]] = asyncio.ensure_future(window.start())
        self.task.add_done_callback(_retrieve)

    def take(self, key: Hashable) -> tuple[WindowedList[T], asyncio.Task[list[T]]] | None:
        """The window and its first page's task for `key`; None, and both cancelled, for another key."""
        if key != self.key:
            self.cancel()
            return None
        return self.window, self.task

    def cancel(self) -> None:
        self.task.cancel()
        self.window.cancel()


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Read the outcome of a first page nobody awaited (its screen closed) so asyncio does not log it."""
    if not task.cancelled():
        task.exception()
