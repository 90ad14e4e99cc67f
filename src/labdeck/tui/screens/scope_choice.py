"""Exports and bulk actions on a partial list (issue 25): which rows they cover, and "all matching".

When a list is read on demand (`labdeck.tui.list_feed.ListFeed`) and not all of it is loaded, an export
(`ctrl+e`) or a bulk action first says what the rows chosen on screen are against the listing ("the 300
loaded issues of about 1,204,331", "the 5 marked users of the first 20,000 (more on the server)") and offers
"all matching": the rest of the listing is read first, inside the same task (progress; cancel in `:tasks`),
then every row is exported or acted on (`Scope.rows_for`). A complete list asks nothing: `then` runs at once
with the rows on screen.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from labdeck.tui.list_feed import feed_of
from labdeck.tui.screens.confirm import Cancellable

if TYPE_CHECKING:
    from textual.dom import DOMNode

    from labdeck.tui.jobs import Job
    from labdeck.tui.widgets.resource_table import ResourceTable

T = TypeVar("T")
Everything = Callable[["Job"], Awaitable[Sequence[T]]]
LOADED, ALL = "loaded", "all"


@dataclass
class Scope(Generic[T]):
    """The rows an export or a bulk action covers: those chosen on screen (`rows`), or, with `everything`,
    all the rows of the listing, read first. `text` says which, in words."""

    rows: Sequence[T]
    text: str
    everything: Everything[T] | None = None
    partial: bool = False  # chosen on a partial list: `text` says how much of the listing it is

    @property
    def all_matching(self) -> bool:
        return self.everything is not None

    async def rows_for(self, job: Job) -> Sequence[T]:
        """The rows to act on: read first when "all matching" (the job's progress counts the reading, then
        starts again for the acting)."""
        if self.everything is None:
            return self.rows
        rows = await self.everything(job)
        job.done = 0
        job.set_total(len(rows))
        return rows


class ScopeChoice(Cancellable[str | None], ModalScreen[str | None]):
    """Ask whether an action covers the rows on screen or all matching rows: dismisses with `LOADED`,
    `ALL`, or None (escape, Cancel: "<action>: cancelled")."""

    SENDS_NO_WRITE = "a question: the opener acts after the answer"

    CSS_PATH = "confirm.tcss"
    AUTO_FOCUS = "#scope-loaded"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="scope.cancel")]

    def __init__(self, title: str, message: Content, loaded_label: str, action: str = "") -> None:
        super().__init__()
        self.choice_title, self.message, self.loaded_label = title, message, loaded_label
        self.action = action  # "Export", "Bulk": what a cancel cancels

    def cancel_subject(self) -> str | None:
        return self.action or super().cancel_subject()

    def compose(self) -> ComposeResult:
        with Vertical(classes="confirm-box"):
            yield Static(Content(self.choice_title), classes="confirm-title")
            yield Static(self.message, classes="confirm-message")
            with Horizontal(classes="confirm-buttons"):
                yield Button("Cancel", id="cancel", variant="default")
                yield Button(self.loaded_label, id="scope-loaded", variant="primary")
                yield Button("All matching", id="scope-all", variant="warning")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        choice = {"scope-loaded": LOADED, "scope-all": ALL}.get(event.button.id or "")
        if choice is None:
            self.cancel()
        else:
            self.dismiss(choice)


def choose_scope(owner: DOMNode, table: ResourceTable, rows: Sequence[Any], which: str, action: str,
                 then: Callable[[Scope[Any]], object]) -> None:
    """Call `then` with the scope of `action` ("Export", "Close"): `rows` (the `which` rows: "marked",
    "shown") when the list is complete, else what the operator chooses, the rows or all matching."""
    feed = feed_of(table)
    if feed is None or not feed.partial:
        then(Scope(rows, f"the {len(rows):,} {which} rows"))
        return
    text = feed.coverage(len(rows), which)
    message = Content.from_markup(
        "$action $text, or $everything? All matching reads the rest of the list first, as a task you can "
        "cancel (:tasks), then acts on every row read.", action=action, text=text,
        everything=feed.matching_text())

    def answered(choice: str | None) -> None:
        if choice == LOADED:
            then(Scope(rows, text, partial=True))
        elif choice == ALL:
            then(Scope(rows, feed.matching_text(), feed.read_rest, partial=True))

    owner.app.push_screen(ScopeChoice(f"{action}: which rows?", message, f"The {len(rows):,} {which}",
                                      action), answered)
