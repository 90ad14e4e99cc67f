"""What the three tabs of `:access` share: a list pane of the kit (`kit/panes.ListPane`) over a scope (its
owner: a group, `Owner("groups", path)`, its subgroups and projects included, or the instance,
`kit/owner.INSTANCE`), whose read is one of the access review's fan-outs (`api/access_*.py`).

Rows are shown as they come (`on_rows`: the table is redrawn at most every `REDRAW` seconds while the
review runs, then once complete); a filter field above the list narrows what is shown (the tab's filter
line, `domain/access_filters.py`: a word it cannot read is said in the status line, the list unfiltered);
the status line says how many rows there are, how many are shown, what each tab counts, and names the
groups and projects that could not be read (a 403, a 404), which the review skipped. `r` reads past the
cache (the kit's), and a new scope is a new owner (`show_owner`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, Final

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Input, Static

from labdeck.api.access_scope import Unreadable
from labdeck.domain.access_filters import FilterError
from labdeck.tui.clock import now_of
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import ListPane

if TYPE_CHECKING:
    from labdeck.api.services import Services
    from labdeck.tui.kit.tabs import TabSpec

WAITING: Final = "Type a group's path in the scope field (f) and press enter; enter on it empty: the instance"
REDRAW: Final = 0.25  # seconds between two redraws of a list still being read
Heard = Callable[[list[Any], int, int], None]


def scope_owner(scope: str | None) -> Owner:
    """The pane owner of a scope: a group's full path, or None (empty) for the instance."""
    from labdeck.tui.kit.owner import INSTANCE

    path = (scope or "").strip().strip("/")
    return Owner("groups", path, where=path) if path else INSTANCE


def unreadable_text(items: list[Unreadable]) -> str:
    """`skipped 2: fleet/web/a (403), fleet/web/b (404)`, "" for none."""
    if not items:
        return ""
    named = ", ".join(f"{u.path} ({u.status or 'error'})" for u in items[:5])
    more = f", {len(items) - 5} more" if len(items) > 5 else ""
    return f"skipped {len(items)}: {named}{more}"


class ReviewPane(ListPane):
    """A tab of the review: a subclass says how it reads (`review`), how its filter line reads
    (`parse_filter`) and what its status line counts (`counts`)."""

    FILTER_HINT: ClassVar[str] = ""
    ENTER_OPENS_DETAIL = True
    READ_WHEN_SHOWN = True  # a review is a fan-out: read only the tabs looked at

    def __init__(self, owner: Owner, spec: TabSpec, *, id: str, now: Callable[[], datetime] | None = None
                 ) -> None:
        super().__init__(owner, spec, id=id, view_id=f"{id}-view")
        self.now = now_of(self, now)
        self.held: list[Any] = []
        self.unreadable: list[Unreadable] = []
        self.wanted: Any = None
        self.problem = ""
        self._drawn_at = 0.0
        self.complete = False
        self.waiting = False  # no scope chosen yet: nothing is read (a review of the instance is big)

    def compose_above(self) -> ComposeResult:
        yield Input(placeholder=self.FILTER_HINT, id=f"{self.id}-filter", classes="access-filter")
        yield Static("", markup=False, id=f"{self.id}-status", classes="access-status")

    # -- what a tab says ------------------------------------------------------------------------------
    async def review(self, services: Services, scope: str | None, refresh: bool,
                     heard: Heard) -> tuple[list[Any], list[Unreadable]]:
        raise NotImplementedError

    def parse_filter(self, text: str) -> Any:
        raise NotImplementedError

    def matches(self, wanted: Any, row: Any) -> bool:
        return bool(wanted.matches(row))

    def counts(self, rows: list[Any]) -> str:
        """What the status line counts of the rows (those found, all of them)."""
        return ""

    def missing(self) -> str | None:
        if self.waiting:
            return WAITING
        return super().missing()

    # -- reading --------------------------------------------------------------------------------------
    @property
    def scope(self) -> str | None:
        return None if self.owner.kind == "instance" else str(self.owner.ref)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        self.complete = False
        self.held, self.unreadable = [], []
        partial: list[Any] = []

        def heard(rows: list[Any], done: int, total: int) -> None:
            partial.extend(rows)
            moment = time.monotonic()
            if rows and (not self.held or moment - self._drawn_at >= REDRAW):
                self._drawn_at = moment
                self.held = list(partial)
                self.show_rows(f"reading {done}/{total}")

        rows, self.unreadable = await self.review(services, self.scope, refresh, heard)
        return rows

    def show_scope(self, owner: Owner, *, read: bool) -> None:
        """Show another scope: read now (`read`, the tab in view) or when next shown."""
        self.waiting = False
        if not read:
            self.table.set_rows([])
            self.owner = owner
            self.forget()
            self._read_once = False
            return
        self.show_owner(owner)

    def forget(self) -> None:
        self.held, self.unreadable = [], []

    def show_data(self, data: list[Any]) -> None:
        self.held, self.complete = data, True
        self.show_rows()

    def show_rows(self, progress: str = "") -> None:
        """The held rows through the filter, and the status line."""
        wanted = self.wanted
        shown = self.held if wanted is None else [r for r in self.held if self.matches(wanted, r)]
        self.table.set_rows(shown)
        where = self.owner.where or "the instance"
        parts = [f"{where}: {len(shown)} of {len(self.held)}" if wanted is not None
                 else f"{where}: {len(self.held)}", self.counts(self.held), progress,
                 unreadable_text(self.unreadable), self.problem]
        self.query_one(f"#{self.id}-status", Static).update(
            Text(" · ".join(p for p in parts if p), style="yellow" if self.problem or self.unreadable
                 else "dim"))

    # -- the filter field -----------------------------------------------------------------------------
    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id != f"{self.id}-filter":
            return
        event.stop()
        text = event.value.strip()
        try:
            self.wanted, self.problem = (self.parse_filter(text) if text else None), ""
        except FilterError as error:
            self.wanted, self.problem = None, str(error)
        self.show_rows()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == f"{self.id}-filter":
            event.stop()
            self.table.focus()
