"""The comment and description editor (issue 24, "typing real text"): a comment keeps every line typed
(enter is a new line, ctrl+s sends); `ctrl+o` hands the text to `$VISUAL`/`$EDITOR` through a private
scratch file and reads it back; an editor that is missing or fails says so and the text stays; a paste
with an escape sequence arrives in order, its controls made visible; the edit dialog edits the
description."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

import pytest
from areas_fixtures import open_issues
from snapshot_apps import make_app, messages, sandbox, sandbox_settings, settle
from test_issues_screen import ALICE, SIZE, open_edit, sandbox_issue, select
from textual import events
from textual._xterm_parser import XTermParser
from textual.app import App, ComposeResult
from textual.content import Content

import labdeck.tui.app  # noqa: F401  (installs the paste fix, as running labdeck does)
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.seed.issues import issues_data
from labdeck.tui.screens.issues.dialogs import CommentScreen
from labdeck.tui.widgets.text_editor import TextEditor

REF, PROJECT, IID = "acme/platform/api-gateway#2", "acme/platform/api-gateway", 2


class EditorApp(App[None]):
    """One `TextEditor` on a screen of its own."""

    def compose(self) -> ComposeResult:
        yield TextEditor("first line\n", id="editor")


def fake_editor(tmp_path: Path, body: str) -> Path:
    """A shell script that records its arguments and the scratch file's modes, then runs `body`."""
    script = tmp_path / "fake-editor"
    script.write_text('#!/bin/sh\nfor last; do :; done\nprintf "%s\\n" "$@" > "$(dirname "$0")/args"\n'
                      'stat -c %a "$last" "$(dirname "$last")" > "$(dirname "$0")/modes"\n'
                      'cp "$last" "$(dirname "$0")/seen"\n' + body + "\n")
    script.chmod(0o700)
    return script


def gone(path: Path) -> bool:
    return not path.exists()


def editor_of(app: App[Any]) -> TextEditor:
    return app.query_one("#editor", TextEditor)


async def test_ctrl_o_edits_the_text_in_visual_through_a_private_scratch_file(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    script = fake_editor(tmp_path, 'printf "added by the editor\\n\\033[31mred\\n" >> "$last"')
    monkeypatch.setenv("VISUAL", f"{script} --wait")  # a command with an argument, split as a shell does
    monkeypatch.setenv("EDITOR", "/nonexistent/not-this-one")
    app = EditorApp()
    async with app.run_test() as pilot:
        editor_of(app).focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert editor_of(app).text == "first line\nadded by the editor\n␛[31mred\n"  # controls visible
        assert (tmp_path / "seen").read_text() == "first line\n"  # the editor was given the text
        args = (tmp_path / "args").read_text().split("\n")
        assert args[0] == "--wait" and args[1].endswith("labdeck.md")
        assert (tmp_path / "modes").read_text().split() == ["600", "700"]
        assert gone(Path(args[1])) and gone(Path(args[1]).parent)  # deleted afterwards
        await pilot.press("ctrl+z")  # the editor's change is one edit
        await settle(pilot)
        assert editor_of(app).text == "first line\n"


async def test_editor_falls_back_to_editor_when_visual_is_unset(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    script = fake_editor(tmp_path, 'printf "replaced" > "$last"')
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    app = EditorApp()
    async with app.run_test() as pilot:
        editor_of(app).focus()
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert editor_of(app).text == "replaced"


@pytest.mark.parametrize(("visual", "said"), [
    ("/nonexistent/editor --flag", "could not be started"),
    ("sh -c 'exit 3'", "exited with status 3"),
])
async def test_an_editor_that_is_missing_or_fails_says_so_and_loses_nothing(
        visual: str, said: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VISUAL", visual)
    app = EditorApp()
    async with app.run_test() as pilot:
        editor = editor_of(app)
        editor.focus()
        editor.insert("typed before")
        before = editor.text
        await pilot.press("ctrl+o")
        await settle(pilot)
        assert editor.text == before
        shown = " ".join(str(n.message) for n in app._notifications)
        assert said in shown and "kept" in shown, shown


async def test_a_paste_with_an_escape_sequence_keeps_its_order_and_shows_the_controls() -> None:
    """The bytes a terminal sends for a bracketed paste of `XXX` ESC `[31mYYY`, two lines, parsed by
    Textual's input parser as the driver does: one paste, in order (it came out `^[31mYYYXXX`)."""
    app = EditorApp()
    async with app.run_test() as pilot:
        editor = editor_of(app)
        editor.text = ""
        editor.focus()
        parser = XTermParser()
        for chunk in ("\x1b[200~XXX\x1b[31mYYY\rsecond", " line\x1b[", "201~"):  # cut where reads may cut
            for event in parser.feed(chunk):
                app.post_message(event)
        await settle(pilot)
        assert editor.text == "XXX␛[31mYYY\nsecond line"


async def test_a_multi_line_comment_is_sent_whole() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        await select(pilot, screen, REF)
        screen.table.focus()
        await pilot.press("c")
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CommentScreen)
        await pilot.press(*"Looks good", "enter", *"but see", "enter", "enter", *"- the docs")
        await settle(pilot)
        assert app.screen is dialog  # enter starts a new line, it does not send
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is screen
        issue = sandbox_issue(asgi, PROJECT, IID)
        assert issues_data(asgi.state.store).notes[issue.id][-1].body == "Looks good\nbut see\n\n- the docs"
        assert any("comment added" in m for m in messages(app))


async def test_escape_cancels_a_comment_and_an_empty_one_is_not_sent() -> None:
    app = App[None]()
    async with app.run_test() as pilot:
        dialog = CommentScreen(Content("Comment on x#1"))
        results: list[object] = []
        await app.push_screen(dialog, results.append)
        await settle(pilot)
        assert dialog.query_one(TextEditor).has_focus
        await pilot.press("ctrl+s")  # nothing typed: the form says so and stays
        await settle(pilot)
        assert app.screen is dialog and "Write the comment first" in str(
            dialog.query_one(f"#{dialog.ERROR}").render())
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is not dialog and results == [None]


async def test_the_edit_dialog_edits_the_description() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        dialog = await open_edit(pilot, screen, REF)
        issue = sandbox_issue(asgi, PROJECT, IID)
        description = dialog.query_one("#issues-edit-description", TextEditor)
        assert description.text == issue.description  # the issue's description, to edit
        description.text = "Steps:\n1. open\n2. close"
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=3)
        assert app.screen is screen
        assert sandbox_issue(asgi, PROJECT, IID).description == "Steps:\n1. open\n2. close"


def test_the_scratch_folder_is_private(tmp_path: Path) -> None:
    from labdeck.api.private_files import remove_scratch, write_scratch

    path = write_scratch("comment.md", b"text")
    try:
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
        assert path.read_bytes() == b"text"
        (path.parent / ".comment.md.swp").write_bytes(b"")  # an editor's leftover
    finally:
        remove_scratch(path)
    assert not path.parent.exists()


async def test_keys_typed_while_the_comment_editor_opens_are_kept_enter_as_a_new_line() -> None:
    """`c` then a comment of two lines in one burst: every key lands in the editor, in order (they came out
    `hellow`: the enter and the keys kept after it were dropped)."""
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=sandbox(ManualClock())[1])
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        await select(pilot, screen, REF)
        screen.table.focus()
        for key, character in [("c", "c"), *((c, c) for c in "hello"), ("enter", "\r"),
                               *((c, c) for c in "world")]:  # as the driver sends them: no wait between
            app.post_message(events.Key(key, character))
        await settle(pilot)
        dialog = app.screen
        assert isinstance(dialog, CommentScreen)
        assert dialog.query_one(TextEditor).text == "hello\nworld"
