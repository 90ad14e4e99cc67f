"""A typed confirmation shows and compares the visible form of the name: `alice` + U+202E cannot be
confirmed by typing `alice`, nor shown as if it were; table cells show hidden characters too."""

from __future__ import annotations

from textual.app import App
from textual.widgets import Button, Input, Static

from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.widgets.table_render import clean


class _Host(App[None]):
    def __init__(self, screen: TypeToConfirmScreen) -> None:
        super().__init__()
        self.dialog = screen
        self.answers: list[bool | None] = []

    def on_mount(self) -> None:
        self.push_screen(self.dialog, self.answers.append)


async def test_a_hidden_character_in_the_name_is_shown_and_must_be_typed() -> None:
    app = _Host(TypeToConfirmScreen("Ban user", "Ban this user?", "alice\u202e"))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        screen = app.screen
        prompt = " ".join(str(s.render()) for s in screen.query(Static))
        assert "alice<U+202E>" in prompt and "\u202e" not in prompt
        field = screen.query_one("#confirm-name", Input)
        confirm = screen.query_one("#confirm", Button)
        for typed in ("alice", "alice\u202e"):  # the look-alike, and the raw character pasted
            field.value = typed
            await pilot.press("enter")
            await pilot.pause()
            assert app.answers == [] and confirm.disabled
        field.value = "alice<U+202E>"
        await pilot.pause()
        assert not confirm.disabled
        await pilot.press("enter")
        await pilot.pause()
        assert app.answers == [True]


def test_table_cells_show_hidden_characters() -> None:
    assert clean("ali\u202ece\u200b") == "ali<U+202E>ce<U+200B>"
    assert clean("a\tb\nc") == "a b c" and clean("plain") == "plain"
