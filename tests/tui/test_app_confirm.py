"""Confirmations: ConfirmScreen focuses Cancel; TypeToConfirmScreen confirms only once the name is typed;
server names in messages are literal text."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Button, Input

from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen


class _Host(App[None]):
    def __init__(self, screen: ConfirmScreen) -> None:
        super().__init__()
        self.dialog = screen
        self.answers: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.answers.append)


async def test_confirm_defaults_to_cancel_and_escape_refuses() -> None:
    app = _Host(ConfirmScreen("Remove member", "[@click=app.quit]x"))
    async with app.run_test() as pilot:
        await pilot.pause()
        assert isinstance(app.focused, Button) and app.focused.id == "cancel"
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [False]
    app = _Host(ConfirmScreen("Remove member", "alice"))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.answers == [False]


async def test_confirm_button_gives_true() -> None:
    app = _Host(ConfirmScreen("Block", "Block alice?"))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.click("#confirm")
        await pilot.pause()
        assert app.answers == [True]


async def test_type_to_confirm_needs_the_exact_name() -> None:
    app = _Host(TypeToConfirmScreen("Delete repository", "Delete every tag?", "acme/[b]web"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        field = app.screen.query_one("#confirm-name", Input)
        assert app.focused is field
        confirm = app.screen.query_one("#confirm", Button)
        assert confirm.disabled
        field.value = "acme/web"
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [] and confirm.disabled
        field.value = "acme/[b]web"
        await pilot.pause()
        assert not confirm.disabled
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [True]


async def test_a_typed_name_that_does_not_match_says_so() -> None:
    """Issue 24: enter on a wrong name did nothing at all; now the dialog says what to type (the name as
    literal text), stays quiet while the text typed can still become the name, and clears when it does."""
    from textual.widgets import Static

    app = _Host(TypeToConfirmScreen("Delete repository", "Delete every tag?", "acme/[b]platform"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        said = app.screen.query_one("#confirm-mismatch", Static)
        field = app.screen.query_one("#confirm-name", Input)
        assert not said.display
        await pilot.press(*"acme/")
        await pilot.pause()
        assert not said.display  # on its way to the name
        await pilot.press("x")
        await pilot.pause()
        assert said.display and str(said.render()) == "does not match: type acme/[b]platform to confirm"
        field.value = "acme/"
        await pilot.pause()
        assert not said.display
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [] and said.display
        assert "does not match: type acme/[b]platform to confirm" in str(said.render())
        field.value = "acme/[b]platform"
        await pilot.pause()
        assert not said.display
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [True]
