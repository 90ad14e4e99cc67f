"""`FormDialog`: a `Problem` stays in the form; any other value, a string included, is the result."""

from __future__ import annotations

from textual.app import App, ComposeResult
from textual.widgets import Button, Input, Static

from labdeck.tui.kit.forms import FormDialog, Problem


class NameDialog(FormDialog[str]):
    SUBMIT = "ok"
    ERROR = "error"
    SENDS_NO_WRITE = "a test form"

    def compose(self) -> ComposeResult:
        yield Input(id="name")
        yield Static("", id="error")
        yield Button("OK", id="ok")

    def value(self) -> str | Problem:
        name = self.query_one("#name", Input).value.strip()
        return name if name else Problem("a name is required")


async def test_a_problem_is_shown_and_a_string_result_closes_the_form() -> None:
    results: list[str | None] = []
    app = App[None]()
    async with app.run_test() as pilot:
        dialog = NameDialog()
        await app.push_screen(dialog, results.append)
        await pilot.pause()
        dialog.query_one("#ok", Button).press()
        await pilot.pause()
        assert app.screen is dialog and results == []
        assert "a name is required" in str(dialog.query_one("#error", Static).render())
        dialog.query_one("#name", Input).value = "release"
        dialog.query_one("#ok", Button).press()
        await pilot.pause()
        assert results == ["release"] and app.screen is not dialog
