"""Form keys of the base classes (`FormKeys`) and the key router: a burst of keys across tab lands in the
right fields, no key typed while a form opens is lost, the first field has focus, enter submits a one-field
dialog, ctrl+s submits from inside a field, and while a field has focus the footer offers the keys that work
(letters are typed)."""

from __future__ import annotations

from typing import Any

from snapshot_apps import jump_to, make_app, settle, until
from textual import events
from textual.app import ComposeResult
from textual.command import CommandPalette
from textual.containers import Vertical
from textual.widgets import Button, Input, Static

from labdeck.tui.kit.forms import Field, FormDialog, FormScreen, Problem

SIZE = (120, 36)



def burst(app: Any, keys: str) -> None:
    """Post every key at once, as a fast typist's terminal delivers them (pilot.press waits between keys)."""
    for key in keys.split(" "):
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)


class OneField(FormDialog[dict[str, str]]):
    SUBMIT = "ok"
    ERROR = "problem"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Input(id="only")
            yield Static("", id="problem")
            yield Button("OK", id="ok", variant="primary")

    def value(self) -> dict[str, str] | Problem:
        text = self.query_one("#only", Input).value
        return {"text": text} if text else Problem("type something")


async def test_a_burst_across_tab_lands_in_both_fields_and_no_early_key_is_lost() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.push_screen(FormScreen("Two fields", [Field("first", "First"), Field("second", "Second")]))
        burst(app, "a b c tab d e f")  # before the form has even mounted
        await settle(pilot)
        values = {field.id: field.value for field in app.screen.query(Input)}
        assert values == {"field-first": "abc", "field-second": "def"}


async def test_enter_submits_a_one_field_dialog_and_ctrl_s_submits_from_a_field() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        results: list[Any] = []
        app.push_screen(OneField(), results.append)
        await settle(pilot)
        assert isinstance(app.screen.focused, Input)  # opens on its field
        await pilot.press("enter")
        assert isinstance(app.screen, OneField)  # refused: nothing typed, the reason shown
        await pilot.press("h", "i", "enter")
        await settle(pilot)
        assert results == [{"text": "hi"}]
        form = FormScreen("Form", [Field("name", "Name"), Field("path", "Path")])
        app.push_screen(form, results.append)
        await settle(pilot)
        await pilot.press("x", "ctrl+s")
        await settle(pilot)
        assert results[-1] == {"name": "x", "path": ""}


async def test_first_run_opens_with_its_first_field_focused() -> None:
    app = make_app(first_run=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        focused = app.screen.focused
        assert isinstance(focused, Input) and focused.id == "name"


async def test_while_typing_letters_are_typed_and_the_footer_offers_what_works() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "issues")
        screen = app.screen
        query = screen.query_one("#issues-query", Input)
        query.focus()
        await pilot.pause()
        enabled = {binding.action for _key, (_node, binding, on, _tip) in screen.active_bindings.items()
                   if on and binding.show}
        assert {"quit", "jump", "help", "bulk"}.isdisjoint(enabled)
        assert {"command_palette", "help_anywhere", "back"} <= enabled
        query.value = ""
        await pilot.press("q", "colon")
        assert app.screen is screen and query.value == "q:"
        await pilot.press("ctrl+p")  # the palette opens from inside the field
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen and screen.focused is query
        await pilot.press("escape")  # the field hands focus back to the table; a second escape leaves
        assert app.screen is screen and screen.focused is screen.table
        await pilot.press("escape")
        assert app.screen is not screen


async def test_the_jump_prompt_keeps_the_keys_typed_while_it_opens() -> None:
    from labdeck.tui.screens.issues.issues import IssuesScreen
    from labdeck.tui.screens.shell.home import HomeScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        burst(app, "colon i s s u e s enter")  # `:issues` and enter in one burst, before the prompt is up
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, IssuesScreen), app.screen
        issues = app.screen
        burst(app, "colon g r o u p s enter")  # from a list whose letters are actions (`r` refreshes, ...)
        await settle(pilot)
        await settle(pilot)
        assert type(app.screen).__name__ == "GroupsScreen", app.screen
        assert issues.query_one("#issues-query", Input).value == ""


async def test_keys_typed_into_the_jump_prompt_never_reach_the_screen_beneath() -> None:
    """Issue 22 item 11: on `:journal`, `:users` typed fast ran `u` (undo) on the row under the cursor; on
    an area that opens in its path field, a following `:registry` became the project path."""
    from labdeck.tui.screens.confirm import ConfirmScreen
    from labdeck.tui.screens.registry.registry import RegistryScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        burst(app, "colon j o u r n a l enter")
        await settle(pilot)
        await settle(pilot)
        assert type(app.screen).__name__ == "JournalScreen", app.screen
        burst(app, "colon u s e r s enter")
        await settle(pilot)
        await settle(pilot)
        assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
        assert type(app.screen).__name__ == "UsersScreen", app.screen
        burst(app, "colon d e p l o y m e n t s enter")
        await settle(pilot)
        await settle(pilot)
        assert app.focused is not None and app.focused.id == "deployments-scope"  # it opens in its path field
        burst(app, "colon r e g i s t r y enter")
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, RegistryScreen), app.screen
        assert not any(":registry" in entry.path or "%3Aregistry" in entry.path
                       for entry in app.request_log.entries)


async def test_keys_typed_while_an_area_opens_are_delivered_to_it_in_order() -> None:
    """Issue 24 (type-ahead): `:issues` enter `f label:bug` enter in one burst: the area opens, the query
    field gets the text and the query runs; nothing goes into the closing prompt or to the home screen."""
    from textual import events

    from labdeck.tui.screens.issues.issues import IssuesScreen

    characters = {"colon": ":", "enter": "\r", "slash": "/"}
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        for key in "colon i s s u e s enter f l a b e l colon b u g enter".split():
            event = events.Key(key, characters.get(key, key))
            event.set_sender(app)
            app._driver.send_message(event)
        for _ in range(60):  # a condition, not a time: the keys are let in one at a time
            await settle(pilot)
            if app.context.keys.idle and any("labels=bug" in e.path for e in app.request_log.entries):
                break
        assert isinstance(app.screen, IssuesScreen), app.screen
        assert app.screen.query_one("#issues-query", Input).value == "label:bug"
        assert any("labels=bug" in entry.path for entry in app.request_log.entries)
        assert app.context.keys.idle


async def test_kept_keys_are_never_kept_for_good() -> None:
    """Something the keys wait for that never ends (a write that hangs, a screen that never says it is
    ready): the key router gives the keys to the screen on top after `GIVE_UP` seconds instead of
    swallowing every key from then on."""
    import asyncio

    from labdeck.tui import type_ahead

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        type_ahead.GIVE_UP = 0.3
        never: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        try:
            app.context.keys.wait_for(never)
            burst(app, "colon")
            await until(pilot, lambda: app.context.keys.waiting or not app.context.keys.idle, "the key kept")
            for _ in range(100):  # a condition: the router gives up after GIVE_UP
                if app.context.keys.idle:
                    break
                await pilot.pause(0.02)
            assert app.context.keys.idle
            assert type(app.screen).__name__ == "JumpScreen"  # the key reached the screen on top
        finally:
            type_ahead.GIVE_UP = 10.0
            never.cancel()
