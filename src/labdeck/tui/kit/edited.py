"""`EditedPane`: a list pane whose rows are added (`a`), edited (`e`) and deleted (`x`) through its editor
(`TabEditor`: its noun, the forms, the write, the confirmation of a delete and the re-read after a lost
answer). An add or edit form sends its change itself and stays open until it is done; then the list is
focused on the saved row and read again. A delete asks first. What a change says when done is here too
(`DONE`, `done_text`).

It may use the kit (`kit/panes.py`, `kit/forms.py`) and the write mechanism (`tui/writes.py`); the editors
themselves are declared by the areas whose rows they edit (`:groups`' labels and badges).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from textual import work
from textual.binding import Binding

from labdeck.tui.jobs import counted
from labdeck.tui.kit.forms import FormScreen, Values
from labdeck.tui.kit.panes import EVERY_LIST_FOOTER, ListPane
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

if TYPE_CHECKING:
    from labdeck.api.services import Services

Ref = int | str  # the owner's id or path

DONE = {"add": "added", "edit": "updated", "delete": "deleted"}


def done_text(noun: str, what: str, count: int) -> str:
    """What a change of a tab's items says when done: "Member added", "2 members added"."""
    return f"{noun.capitalize()} {DONE[what]}" if count == 1 else f"{counted(count, noun)} {DONE[what]}"


@dataclass(frozen=True)
class TabEditor:
    """The add, edit and delete of one list's rows. The forms are made for (services, owner id[, row]);
    `change(services, owner id, what, row, values)` sends "add" (row None), "edit" or "delete" and returns
    how many items it acted on; `applied(services, owner id, row, values)` re-reads the list after a lost
    answer; `confirm_delete(row, where)` asks before a delete."""

    noun: str
    add_form: Callable[[Services, Ref], FormScreen]
    edit_form: Callable[[Services, Ref, Any], FormScreen | None]
    confirm_delete: Callable[[Any, str], ConfirmScreen]
    change: Callable[[Services, Ref, str, Any, Values], Awaitable[int]]
    applied: Callable[[Services, Ref, Any, Values], Awaitable[bool]]


class EditedPane(ListPane):
    EDITOR: ClassVar[TabEditor]
    FOOTER_ORDER: ClassVar[tuple[str, ...]] = ("select", "add", "edit", "delete", *EVERY_LIST_FOOTER)
    BINDINGS = [
        Binding("a", "add", "Add", id="groups.add"),
        Binding("e", "edit", "Edit", id="groups.edit"),
        Binding("x", "delete", "Delete", id="groups.delete"),
    ]
    MUTATING_ACTIONS = frozenset({"add", "edit", "delete"})
    ROW_ACTIONS = frozenset({"edit", "delete"})

    def action_add(self) -> None:
        self.open_change_form(self.EDITOR.add_form(self.ctx.services, self.ref), "add", None)

    def action_edit(self) -> None:
        row = self.table.cursor_row
        if row is None:
            return
        form = self.EDITOR.edit_form(self.ctx.services, self.ref, row)
        if form is not None:
            self.open_change_form(form, "edit", row)

    def open_change_form(self, form: FormScreen, what: str, row: Any) -> None:
        """Open an add or edit form that sends its change itself: it stays open, values kept, until the
        change is done; after a lost answer it re-reads the list (the editor's `applied`)."""
        ref, editor = self.ref, self.EDITOR

        async def write(values: Values) -> int:
            return await editor.change(self.ctx.services, ref, what, row, values)

        def done(result: int | None) -> None:
            if result and is_live(self):
                self.notify(done_text(editor.noun, what, int(result)))
                self.load()

        open_write_form(self, form, write, row=row, done=done,
                        verify=lambda values: editor.applied(self.ctx.services, ref, row, values),
                        refresh=lambda: self.load() if is_live(self) else None)

    def action_delete(self) -> None:
        row = self.table.cursor_row
        if row is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.apply_change("delete", row, {})

        self.app.push_screen(self.EDITOR.confirm_delete(row, self.owner.where), answered)

    @work(group="edited-pane-change")
    async def apply_change(self, what: str, row: Any, values: Values) -> None:
        try:
            count = await self.EDITOR.change(self.ctx.services, self.ref, what, row, values)
        except FormScreen.REFUSALS as error:  # the forms check first; a last line of defence
            self.notify(str(error), severity="error", markup=False)
            return
        self.notify(done_text(self.EDITOR.noun, what, count))
        self.load()
