"""The key router on its own (`tui/type_ahead.KeyRouter`), in a bare Textual app that asks it for every key:
a key is let in only once the effects of the key before it have happened (messages handled, callbacks run,
focus applied), so letters typed after a key that opens a field reach that field, even when opening it
takes several hops; keys wait for a form that reads data before it opens (`wait_for`); a paste keeps its
place among the keys. Without the router the same bursts lose their letters (the tests show it). Then the
jump prompt's keys in a `LabdeckApp` (issue 24: chained jumps in one burst, an enter with the name)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from snapshot_apps import burst
from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Static

import labdeck.tui.app  # noqa: F401  (installs the count of messages being handled that the router reads)
from labdeck.tui.type_ahead import KeyRouter


class Opener(Screen[None]):
    """`o` shows a hidden field three hops later (a callback that posts a callback that focuses it); `e`
    reads "data" for 0.2 s, then opens a form (declared to the router when `declare`)."""

    BINDINGS = [Binding("o", "open_field"), Binding("e", "edit")]
    AUTO_FOCUS = ""  # the keys go to the screen (a list, say) until `o` focuses the field

    def __init__(self, declare: bool) -> None:
        super().__init__()
        self.declare = declare
        self.swallowed: list[str] = []

    def compose(self) -> ComposeResult:
        yield Static("list", id="list")
        yield Input(id="field")

    def on_mount(self) -> None:
        self.query_one("#field").display = False

    def action_open_field(self) -> None:
        def show() -> None:
            field = self.query_one("#field", Input)
            field.display = True
            field.focus()

        self.call_later(lambda: self.app.call_later(show))

    def action_edit(self) -> None:
        worker = self.open_form()
        if self.declare:
            self.app.router.wait_for(worker)  # type: ignore[attr-defined]

    @work
    async def open_form(self) -> None:
        await asyncio.sleep(0.2)
        self.app.push_screen(Form())

    def on_key(self, event: events.Key) -> None:
        if event.character and event.is_printable and event.key not in ("o", "e"):
            self.swallowed.append(event.character)  # a letter that reached the screen, not a field


class Form(ModalScreen[None]):
    AUTO_FOCUS = "#form-field"

    def compose(self) -> ComposeResult:
        yield Input(id="form-field")


class RoutedApp(App[None]):
    def __init__(self, *, routed: bool = True, declare: bool = True) -> None:
        super().__init__()
        self.router = KeyRouter()
        self.router.enabled = routed
        self.declare = declare

    def on_mount(self) -> None:
        self.push_screen(Opener(self.declare))

    async def on_event(self, event: events.Event) -> None:
        if self.router.takes(self, event):
            return
        await super().on_event(event)


async def handled(app: RoutedApp, pilot: Any) -> None:
    await pilot.pause()  # the app reads the burst from its queue (into the router's)
    for _ in range(500):
        if app.router.idle:
            break
        await asyncio.sleep(0.01)
    await pilot.pause()
    await app.workers.wait_for_complete()
    await pilot.pause()


async def test_letters_after_a_key_that_opens_a_field_reach_the_field() -> None:
    app = RoutedApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "o", *"api")
        await handled(app, pilot)
        assert app.screen.query_one("#field", Input).value == "api"
        assert app.screen.swallowed == []  # type: ignore[attr-defined]


async def test_without_the_router_the_same_burst_loses_its_letters() -> None:
    """The race the router removes (so the test above can fail): the letters reach the screen beneath."""
    app = RoutedApp(routed=False)
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "o", *"api")
        await handled(app, pilot)
        assert app.screen.query_one("#field", Input).value != "api"
        assert app.screen.swallowed  # type: ignore[attr-defined]


@pytest.mark.parametrize("declare", [True, False])
async def test_keys_wait_for_a_form_that_reads_its_data_first(declare: bool) -> None:
    """`e` opens its form only after a read: declared with `wait_for`, the letters typed with it wait and
    reach the form; undeclared, nothing tells the router that something is opening."""
    app = RoutedApp(declare=declare)
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "e", *"fix")
        await handled(app, pilot)
        assert isinstance(app.screen, Form)
        typed = app.screen.query_one("#form-field", Input).value
        assert (typed == "fix") is declare


async def test_a_paste_keeps_its_place_among_the_keys() -> None:
    app = RoutedApp()
    async with app.run_test() as pilot:
        await pilot.pause()
        burst(app, "o", "a")
        paste = events.Paste("pi-gate")
        paste.set_sender(app)
        app._driver.send_message(paste)  # type: ignore[union-attr]
        burst(app, "w", "a", "y")
        await handled(app, pilot)
        assert app.screen.query_one("#field", Input).value == "api-gateway"


async def test_jumps_chained_in_one_burst_each_open_their_area_and_the_last_takes_the_rest() -> None:
    """`:projects` enter `:users` enter `:deployments` enter `acme` in one burst: each prompt answers with its
    own name (the replayed enter used to reach the field after the next `:`: `No view called :users:...`)."""
    from snapshot_apps import make_app, settle, until
    from textual.widgets import Input

    from labdeck.tui.screens.deployments.deployments import DeploymentsScreen

    app = make_app()
    characters = {"colon": ":", "enter": "\r"}
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        keys = "colon p r o j e c t s enter colon u s e r s enter colon d e p l o y m e n t s enter a c m e"
        for key in keys.split(" "):
            event = events.Key(key, characters.get(key, key))
            event.set_sender(app)
            app._driver.send_message(event)  # type: ignore[union-attr]
        # (the screen may not have its field yet)
        await until(pilot, lambda: isinstance(app.screen, DeploymentsScreen)
                    and [f.value for f in app.screen.query("#deployments-scope").results(Input)] == ["acme"],
                    "the third area")
        assert [type(screen).__name__ for screen in app.screen_stack] == ["DeploymentsScreen"]
        assert not [n for n in app._notifications if "No view" in str(n.message)]


async def test_an_enter_typed_in_one_burst_with_the_name_answers_with_the_whole_name() -> None:
    """Into an open prompt, `users` and enter in one burst: the enter is read in the field's turn, after
    the letters before it (answered at the app's level, it once came before them: `No view called :`)."""
    from snapshot_apps import make_app, settle, until

    from labdeck.tui.screens.shell.jump import JumpScreen
    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app()
    characters = {"enter": "\r"}
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen, JumpScreen) and app.screen._form_ready,
                    "the prompt")
        for key in ["u", "s", "e", "r", "s", "enter"]:
            event = events.Key(key, characters.get(key, key))
            event.set_sender(app)
            app._driver.send_message(event)  # type: ignore[union-attr]
        await until(pilot, lambda: isinstance(app.screen, UsersScreen), "Users")
        assert not [n for n in app._notifications if "No view" in str(n.message)]


async def test_the_mouse_entering_the_jump_prompt_answers_nothing() -> None:
    """Textual sends an `Enter` event when the mouse enters a widget, to `on_enter` handlers: the prompt's
    answer must not be such a handler (it once was: moving the mouse over the prompt "answered" it)."""
    from snapshot_apps import make_app, settle, until

    from labdeck.tui.screens.shell.jump import JumpScreen

    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("colon", "u", "s")
        await until(pilot, lambda: isinstance(app.screen, JumpScreen) and app.screen.text == "us",
                    "the prompt with what was typed")
        prompt = app.screen
        await pilot.hover("#jump-input")
        await pilot.hover("#jump-choices")
        await settle(pilot)
        assert app.screen is prompt and not prompt.answered and prompt.text == "us"


async def test_a_colon_typed_in_a_path_field_still_jumps_and_the_rest_follows() -> None:
    """Characters typed into a field go in together, but not past a key the app runs before the field sees
    it: on `:deployments` (it opens in its path field) `acme`, `:users` and enter in one burst fill the path
    with `acme` and open Users, whose prompt got `users`."""
    from snapshot_apps import jump_to, make_app, settle, until

    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await jump_to(pilot, "deployments")
        await until(pilot, lambda: app.focused is not None and app.focused.id == "deployments-scope",
                    "the path field")
        deployments = app.screen
        burst(app, *"acme", ":", *"users", "enter")
        await settle(pilot)
        assert isinstance(app.screen, UsersScreen), app.screen
        assert deployments.query_one("#deployments-scope", Input).value == "acme"
