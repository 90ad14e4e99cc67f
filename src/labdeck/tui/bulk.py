"""One bulk action for every area: marked rows become a job with a result per item.

An area says what to do to one row (`apply`, answering `(ok, message)`), how a row is named in the results,
which rows to skip and why, and what to reload when the job is done; `start_bulk` does the rest the same way
everywhere: the marks are cleared, the job runs in the job centre (so its changes are journalled under the
job's key), a refusal of one item is that item's result and never stops the others, the job's summary counts
what was done and what failed, and every list the job changed reloads if its screen is still open.
On a partial list the area asks first which rows (`screens/scope_choice.choose_scope`); with "all matching"
(`everything`) the job reads the rest of the listing first, then acts on every row read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

from textual.dom import DOMNode

from labdeck.api.errors import LabdeckError
from labdeck.tui.context import context_of
from labdeck.tui.jobs import Job
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.workers import is_live

if TYPE_CHECKING:
    from labdeck.tui.screens.scope_choice import Scope

T = TypeVar("T")


def _no_skip(_row: object) -> str | None:
    return None


@dataclass
class BulkAction(Generic[T]):
    """What one bulk action does. `prepare` runs first (it may add results of its own, e.g. an unknown
    username); `refresh` reloads the owner's own list when the job is done, if its screen is still open;
    `changed` tells the other lists the job changed (a list behind, with counts), open or not."""

    title: str
    rows: Sequence[T]
    label: Callable[[T], str]
    apply: Callable[[T], Awaitable[tuple[bool, str]]]
    noun: str = "item"
    verb: str = "done"
    skip: Callable[[T], str | None] = _no_skip
    prepare: Callable[[Job], Awaitable[None]] | None = None
    refresh: Callable[[], object] | None = None
    changed: Callable[[], object] | None = None
    scope: Scope[T] | None = None  # "all matching" replaces `rows` (read in the job first)


def start_bulk(owner: DOMNode, action: BulkAction[T], *, table: ResourceTable | None = None) -> Job:
    """Run `action` as a job of `owner`'s console (its screen, or a widget on it); clear `table`'s marks."""
    ctx = context_of(owner)

    async def run(job: Job) -> None:
        if action.prepare is not None:
            await action.prepare(job)
        rows = action.rows if action.scope is None else await action.scope.rows_for(job)
        for row in rows:
            name = action.label(row)
            reason = action.skip(row)
            if reason is not None:
                job.add_result(name, False, f"skipped: {reason}")
                continue
            try:
                ok, message = await action.apply(row)
            except LabdeckError as error:  # this item's result; the others still run
                ok, message = False, ctx.describe(error)
            job.add_result(name, ok, message)
        job.summarize(action.noun, action.verb)
        if action.refresh is not None and is_live(owner):
            action.refresh()
        if action.changed is not None:
            action.changed()

    if table is not None:
        table.action_unmark_all()
    everything = action.scope is not None and action.scope.all_matching
    return ctx.start_job(action.title, run, total=None if everything else len(action.rows))
