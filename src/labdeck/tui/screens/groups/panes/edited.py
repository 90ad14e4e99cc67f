"""`EditedPane`: a `:groups` list pane whose rows are added (`a`), edited (`e`) and deleted (`x`) through its
editor (`groups/editors.TabEditor`: the forms, the write, the re-read after a lost answer): the Labels and
Badges tabs. An add or edit form sends its change itself and stays open until it is done; then the list is
focused on the saved row and read again. A delete asks first."""

from __future__ import annotations

from typing import Any, ClassVar

from textual import work
from textual.binding import Binding

from labdeck.api.badges import BadgeUrlError
from labdeck.tui.jobs import counted
from labdeck.tui.screens.ci_variables import DONE
from labdeck.tui.screens.groups.editors import TabEditor
from labdeck.tui.screens.groups.forms import FormScreen, Values
from labdeck.tui.screens.panes.listed import EVERY_LIST_FOOTER, ListPane
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form


def done_text(noun: str, what: str, count: int) -> str:
    """What a change of a tab's items says when done: "Member added", "2 members added"."""
    return f"{noun.capitalize()} {DONE[what]}" if count == 1 else f"{counted(count, noun)} {DONE[what]}"


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
        services = self.services
        if services is not None:
            self.open_change_form(self.EDITOR.add_form(services, self.ref), "add", None)

    def action_edit(self) -> None:
        services, row = self.services, self.view.table.cursor_row
        if services is None or row is None:
            return
        form = self.EDITOR.edit_form(services, self.ref, row)
        if form is not None:
            self.open_change_form(form, "edit", row)

    def open_change_form(self, form: FormScreen, what: str, row: Any) -> None:
        """Open an add or edit form that sends its change itself: it stays open, values kept, until the
        change is done; after a lost answer it re-reads the list (the editor's `applied`)."""
        services, ref, editor = self.services, self.ref, self.EDITOR
        if services is None:
            return

        async def write(values: Values) -> int:
            return await editor.change(services, ref, what, row, values)

        def done(result: int | None) -> None:
            if result and is_live(self):
                self.notify(done_text(editor.noun, what, int(result)))
                self.load()

        open_write_form(self, form, write, row=row, done=done,
                        verify=lambda values: editor.applied(services, ref, row, values),
                        refresh=lambda: self.load() if is_live(self) else None)

    def action_delete(self) -> None:
        row = self.view.table.cursor_row
        if row is None:
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self.apply_change("delete", row, {})

        self.app.push_screen(self.EDITOR.confirm_delete(row, self.owner.where), answered)

    @work(group="groups-change")
    async def apply_change(self, what: str, row: Any, values: Values) -> None:
        services = self.services
        if services is None:
            return
        try:
            count = await self.EDITOR.change(services, self.ref, what, row, values)
        except BadgeUrlError as error:  # the forms check first; a last line of defence
            self.notify(str(error), severity="error", markup=False)
            return
        self.notify(done_text(self.EDITOR.noun, what, count))
        self.load()
