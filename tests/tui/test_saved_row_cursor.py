"""After a form that creates or edits a row closes, the list has focus with its cursor on that row, and a
row action (`x`, `e`) acts on the row the cursor shows at the moment the key is pressed (issue 32 item 5:
`:groups` Variables, add `MY_VAR`, `x` asked to delete `DEPLOY_TOKEN`)."""

from __future__ import annotations

from typing import Any

from areas_fixtures import add_form, on_variable, open_groups, show_tab
from gate import GatedSandbox
from snapshot_apps import make_app, sandbox, settle, until
from test_groups_screen import SIZE
from textual.app import App, ComposeResult
from textual.widget import Widget
from textual.widgets import Input

from labdeck.tui.kit.actions import Action
from labdeck.tui.kit.forms import Field, FormScreen, Values
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.widgets.resource_table import Column, ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.writes import CannotVerify, open_write_form


async def test_x_after_adding_or_editing_a_variable_asks_to_delete_that_one() -> None:
    """Issue 32 item 5 (add `MY_VAR`, `x` asked to delete `DEPLOY_TOKEN`), then an edit that moves its row
    (a new environment scope, the list sorted by scope) and changes its identity (key and scope): the
    cursor follows it all the same. One app for both (each `x` is cancelled)."""
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        form = await add_form(pilot, screen, "variables")
        form.query_one("#field-key", Input).value = "MY_VAR"
        form.query_one("#field-value", Input).value = "my value"
        await pilot.press("ctrl+s")
        table = screen.table("variables")
        await until(pilot, lambda: app.screen is screen and "MY_VAR" in [v.key for v in table.rows],
                    "the new variable listed")
        await settle(pilot)
        assert screen.focused is table
        assert table.cursor_row.key == "MY_VAR"
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, TypeToConfirmScreen), "the delete confirmation")
        assert app.screen.expected == "MY_VAR"
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, "the confirmation closed")

        table, _index = await on_variable(pilot, screen, "DEPLOY_TOKEN")
        table.sort_by("scope", reverse=False)
        table.move_cursor([v.key for v in table.visible_rows].index("DEPLOY_TOKEN"))
        await pilot.pause()
        assert table.cursor_index < len(table.visible_rows) - 1  # the edit moves it to the end
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the edit form")
        form = app.screen
        form.query_one("#field-value", Input).value = "a-new-deploy-token"
        form.query_one("#field-environment_scope", Input).value = "zz-last"
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen and any(
            v.environment_scope == "zz-last" for v in table.rows), "the edited variable listed")
        await settle(pilot)
        assert screen.focused is table
        assert (table.cursor_row.key, table.cursor_row.environment_scope) == ("DEPLOY_TOKEN", "zz-last")
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, TypeToConfirmScreen), "the delete confirmation")
        assert app.screen.expected == "DEPLOY_TOKEN"


async def test_a_key_pressed_before_the_list_is_read_again_acts_on_the_row_the_cursor_shows() -> None:
    """`x` pressed after a label's form closed but before the list is read again asks about the row the
    cursor shows then; the re-read that brings the new label does not move the cursor from under it."""
    armed = [False]
    transport = GatedSandbox(lambda request: armed[0] and request.method == "GET"
                             and request.url.path.endswith("/labels"))
    app = make_app(transport_factory=lambda settings: transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "labels")
        table = screen.table("labels")
        table.focus()
        await pilot.pause()
        shown = table.cursor_row.name
        form = await add_form(pilot, screen, "labels")
        form.query_one("#field-name", Input).value = "zz-urgent"
        form.query_one("#field-color", Input).value = "tomato"
        armed[0] = True  # the re-read after the save waits
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.screen is screen and transport.waiting,
                    "the form closed, the re-read held")
        assert table.cursor_row.name == shown
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the delete confirmation")
        assert shown in app.screen.message.plain and "zz-urgent" not in app.screen.message.plain
        transport.release()
        await until(pilot, lambda: "zz-urgent" in [label.name for label in table.rows], "the re-read")
        await settle(pilot)
        assert table.cursor_row.name == shown  # still the row the confirmation names


# -- the shared mechanism: any pane whose form goes through `open_write_form` --------------------------
Row = tuple[str, str]  # (name, colour)


class FruitPane(PanePolicy, Widget):
    """A pane of the kit with a list and one form to add (`a`) or edit (`e`) its rows; its store is a
    dict, read back after each save as a server list would be."""

    ACTIONS = (Action("a", "add", "Add", id="fruit.add"),
               Action("e", "edit", "Edit", id="fruit.edit", row=True))

    def __init__(self, store: dict[str, str]) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        yield ResourceView([Column("name", "Name", text=lambda r: r[0]),
                            Column("colour", "Colour", text=lambda r: r[1])], row_key=lambda r: r[0])

    @property
    def table(self) -> ResourceTable:
        return self.query_one(ResourceView).table

    def load(self) -> None:
        self.table.set_rows(sorted(self.store.items(), key=lambda r: r[1]))  # by colour

    def on_mount(self) -> None:
        self.load()

    def open_form(self, row: Row | None) -> None:
        form = FormScreen("Fruit", [Field("name", "Name", row[0] if row else ""),
                                    Field("colour", "Colour", row[1] if row else "")],
                          lambda values: {})

        async def write(values: Values) -> Values:
            if row is not None and row[0] != values["name"]:
                del self.store[row[0]]  # a rename: the row's identity changes
            self.store[str(values["name"])] = str(values["colour"])
            return values

        open_write_form(self, form, write, verify=CannotVerify("a test"), row=row,
                        done=lambda values: self.call_later(self.load) if values else None)

    def action_add(self) -> None:
        self.open_form(None)

    def action_edit(self) -> None:
        self.open_form(self.table.cursor_row)


class FruitApp(App[None]):
    def __init__(self, store: dict[str, str]) -> None:
        super().__init__()
        self.store = store

    def compose(self) -> ComposeResult:
        yield Input(id="elsewhere")
        yield FruitPane(self.store)


async def save_form(pilot: Any, values: dict[str, str]) -> None:
    form = pilot.app.screen
    assert isinstance(form, FormScreen)
    for name, value in values.items():
        form.query_one(f"#field-{name}", Input).value = value
    await pilot.press("ctrl+s")
    await until(pilot, lambda: not isinstance(pilot.app.screen, FormScreen), "the form closed")
    await pilot.pause()


async def test_any_pane_form_puts_the_list_cursor_on_the_row_it_saved() -> None:
    store = {"apple": "green", "cherry": "red", "plum": "violet"}
    app = FruitApp(store)
    async with app.run_test(size=(80, 24)) as pilot:
        pane = app.query_one(FruitPane)
        pane.table.focus()
        await pilot.pause()
        await pilot.press("a")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the add form")
        await save_form(pilot, {"name": "banana", "colour": "yellow"})  # sorts between red and violet
        await until(pilot, lambda: "banana" in [r[0] for r in pane.table.rows], "the list read again")
        assert app.focused is pane.table and pane.table.cursor_row == ("banana", "yellow")
        pane.table.move_cursor(0)  # apple
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the edit form")
        await save_form(pilot, {"name": "granny", "colour": "white"})  # renamed, and sorted last
        await until(pilot, lambda: "granny" in [r[0] for r in pane.table.rows], "the list read again")
        assert pane.table.cursor_row == ("granny", "white")
        # opened from elsewhere (a field of the screen), the add still ends on the list, on the new row
        app.query_one("#elsewhere", Input).focus()
        await pilot.pause()
        pane.action_add()
        await until(pilot, lambda: isinstance(app.screen, FormScreen), "the add form")
        await save_form(pilot, {"name": "lime", "colour": "lime"})
        await until(pilot, lambda: "lime" in [r[0] for r in pane.table.rows], "the list read again")
        assert app.focused is pane.table and pane.table.cursor_row == ("lime", "lime")
