"""One bulk action for every area: marked rows become a job with a result per item, after one confirmation
that names them.

An area says what to do to one row (`apply`, answering `(ok, message)`), how a row is named in the results,
which rows to skip and why, and what to reload when the job is done; `start_bulk` does the rest the same way
everywhere: the marks are cleared, the job runs in the job centre (so its changes are journalled under the
job's key), a refusal of one item is that item's result and never stops the others, the job's summary counts
what was done and what failed, and every list the job changed reloads if its screen is still open.

`confirm_bulk` asks first, the same way everywhere: the area's question, then who or what it acts on, by
the names the results will use (`targets_text`: sanitised, literal text, the first few and "and N more"),
and those it will skip with why; a change that writes over something says what (`BulkQuestion.replaces`).
Cancelling it says "cancelled" (`screens/confirm.Cancellable`).
When a task says done, every open list that shows its targets shows their new state (issue 34): each row
acted on is put in place as the change left it (`after`: from the server's answer or the domain's rules) in
every open list that holds it (`show_in_place`) as soon as its item is done, and, before the job reports
done, `refresh_lists` re-reads the open areas whose lists show the catalogue's cache families the job's own
requests altered (`api.changes_seen`; each area declares its `lists` in `tui/areas.py`), the owner's screen
aside (its own `refresh` reads it). The journal's undo and single-row actions use the same two functions.
On a partial list the area asks first which rows (`screens/scope_choice.choose_scope`); with "all matching"
(`everything`) the job reads the rest of the listing first, then acts on every row read.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from textual.app import App
from textual.content import Content
from textual.dom import DOMNode
from textual.screen import Screen

from labdeck.api import changes_seen
from labdeck.api.cache import in_family, normalise_path
from labdeck.api.errors import LabdeckError
from labdeck.domain.text import sanitize_line
from labdeck.tui.context import context_of
from labdeck.tui.jobs import Job, counted
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.textual_internals import screen_stacks
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.workers import is_live

if TYPE_CHECKING:
    from labdeck.tui.screens.scope_choice import Scope

T = TypeVar("T")
TARGETS_SHOWN = 10  # names a confirmation lists before "and N more"


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
    # What a row becomes when `apply` succeeded (None: the change removed it), shown at once in every open
    # list that holds it (`show_in_place`); without it, the rows change when the lists are read again.
    after: Callable[[T], T | None] | None = None


def show_in_place(app: App[Any], before: object, after: object | None) -> int:
    """Put `after` (None: remove the row) in place of `before` in every open list that holds it, on every
    screen of every area, shown or not: a loaded row of the same type with the same key (each list's own
    key). Returns how many lists changed."""
    changed = 0
    for stack in screen_stacks(app).values():
        for screen in stack:
            if not is_live(screen):
                continue
            for table in screen.query(ResourceTable):
                key = table.model.key_of(before)
                held = table.model.row_for(key)
                if held is None or type(held) is not type(before):
                    continue
                changed += table.replace_row(after) if after is not None else table.remove_rows([key]) > 0
    return changed


def refresh_lists(app: App[Any], families: Iterable[str], *, besides: Collection[Screen[Any]] = ()) -> int:
    """Re-read every open area whose lists show one of `families` (the catalogue's cache families a change
    altered: `domain.catalogue.changed_families`), each screen of its stack, shown or not, but `besides`
    (a screen that reads its own); returns how many screens were asked. The list cache already dropped
    these families, so the re-read is fresh."""
    from labdeck.tui.areas import find_area
    from labdeck.tui.navigation import mode_name
    from labdeck.tui.screens.base import LabdeckScreen

    changed = [normalise_path(family) for family in families]
    asked = 0
    for mode, stack in screen_stacks(app).items():
        area = find_area(mode.removeprefix(mode_name("")))
        if area is None or mode != mode_name(area.name):
            continue
        if not any(in_family(shown, family) for shown in area.lists for family in changed):
            continue
        for screen in stack:
            if isinstance(screen, LabdeckScreen) and is_live(screen) and screen not in besides:
                screen.refresh_data()
                asked += 1
    return asked


def start_bulk(owner: DOMNode, action: BulkAction[T], *, table: ResourceTable | None = None) -> Job:
    """Run `action` as a job of `owner`'s console (its screen, or a widget on it); clear `table`'s marks."""
    ctx = context_of(owner)
    app, own_screen = owner.app, owner.screen

    async def run(job: Job) -> None:
        with changes_seen.watching() as altered:  # the families this job's own changes altered
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
                if ok and action.after is not None:
                    show_in_place(app, row, action.after(row))
                job.add_result(name, ok, message)
        job.summarize(action.noun, action.verb)
        # before the job reports done: the rows acted on are in place; every open list is read again
        if action.refresh is not None and is_live(owner):
            action.refresh()
        refresh_lists(app, altered, besides=(own_screen,))
        if action.changed is not None:
            action.changed()

    if table is not None:
        table.action_unmark_all()
    everything = action.scope is not None and action.scope.all_matching
    return ctx.start_job(action.title, run, total=None if everything else len(action.rows))


def targets_text(names: Sequence[str], limit: int = TARGETS_SHOWN) -> str:
    """`alice, bob and 3 more`: the first `limit` names in their visible form (`sanitize_line`), so a name
    with hidden characters cannot pass for another. Plain text: put it in a `Content`, never in markup."""
    shown = [sanitize_line(name) for name in names[:limit]]
    more = len(names) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


def targets_message(action: BulkAction[T]) -> Content:
    """Who or what `action` acts on, and those it skips with why (one line each, literal text)."""
    if action.scope is not None and action.scope.all_matching:  # not read yet: say how many, not who
        return Content(f"all matching: {action.scope.text}, read first")
    acting = [action.label(row) for row in action.rows if action.skip(row) is None]
    skipped = [(action.label(row), action.skip(row)) for row in action.rows if action.skip(row) is not None]
    text = Content(f"{counted(len(acting), action.noun)}: {targets_text(acting)}" if acting
                   else f"no {action.noun} to act on")
    if skipped:
        reasons = targets_text([f"{name} ({why})" for name, why in skipped])
        text = Content.assemble(text, "\n", Content(f"skipped: {reasons}"))
    return text


@dataclass
class BulkQuestion:
    """The confirmation of a bulk action: a title, the area's question, the button; `typed` asks for that
    text to be typed (the most dangerous actions), `irreversible` says why the journal cannot undo it,
    `replaces` what it writes over (`domain.replacements.replaced_text`: "replaces bob on 3 issues")."""

    title: str
    question: str | Content
    confirm_label: str
    danger: bool = True
    typed: str | None = None
    irreversible: str | None = None
    replaces: str = ""


def confirm_bulk(owner: DOMNode, action: BulkAction[T], ask: BulkQuestion, *,
                 table: ResourceTable | None = None) -> None:
    """Ask `ask`'s question with the targets of `action` named under it; on yes, `start_bulk`."""
    question = ask.question if isinstance(ask.question, Content) else Content(ask.question)
    message = Content.assemble(question, "\n\n", targets_message(action))

    def answered(yes: bool | None) -> None:
        if yes:
            start_bulk(owner, action, table=table)

    screen: ConfirmScreen
    if ask.typed is not None:
        screen = TypeToConfirmScreen(ask.title, message, ask.typed, confirm_label=ask.confirm_label,
                                     irreversible=ask.irreversible, replaces=ask.replaces)
    else:
        screen = ConfirmScreen(ask.title, message, confirm_label=ask.confirm_label, danger=ask.danger,
                               irreversible=ask.irreversible, replaces=ask.replaces)
    owner.app.push_screen(screen, answered)
