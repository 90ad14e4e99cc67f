"""Drafts are never lost (issue 32 item 6): closing an editor whose text differs from what it opened with
(escape, its Cancel button) asks "Discard your changes?" with "Keep editing" focused; keeping returns to
the text as typed, discarding closes. An editor whose text is unchanged closes at once. One rule, in one
place (`screens/confirm.DraftGuard`), for the issue comment and edit dialogs and the wiki editor alike."""

from __future__ import annotations

from typing import Any

from areas_fixtures import open_issues
from snapshot_apps import make_app, sandbox, sandbox_settings, settle, until
from test_issues_screen import ALICE, SIZE, open_edit, sandbox_issue, select
from textual.app import App
from textual.content import Content
from textual.widgets import Button, TextArea

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.seed.issues import issues_data
from labdeck.tui.screens.confirm import DiscardChangesScreen
from labdeck.tui.screens.issues.dialogs import CommentScreen
from labdeck.tui.screens.projects.wiki import WikiEditorScreen
from labdeck.tui.widgets.text_editor import TextEditor

REF, PROJECT, IID = "acme/platform/api-gateway#2", "acme/platform/api-gateway", 2


async def test_escape_in_the_comment_editor_asks_and_keep_editing_keeps_the_text() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        await select(pilot, screen, REF)
        screen.table.focus()
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CommentScreen), "the comment editor")
        dialog = app.screen
        await pilot.press(*"half a thought", "enter", *"and more")
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DiscardChangesScreen), "the question")
        ask = app.screen
        assert "Discard your changes?" in ask.confirm_title.plain
        assert isinstance(ask.focused, Button) and ask.focused.id == "cancel"
        assert str(ask.focused.label) == "Keep editing"
        await pilot.press("enter")  # the focused button: keep editing
        await until(pilot, lambda: app.screen is dialog, "back in the editor")
        editor = dialog.query_one(TextEditor)
        assert editor.text == "half a thought\nand more" and editor.has_focus
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, DiscardChangesScreen), "the question again")
        await pilot.click("#confirm")  # discard
        await until(pilot, lambda: app.screen is screen, "the editor closed")
        issue = sandbox_issue(asgi, PROJECT, IID)
        notes = issues_data(asgi.state.store).notes.get(issue.id, [])
        assert all("half a thought" not in note.body for note in notes)  # nothing was sent


async def test_an_unchanged_editor_closes_at_once() -> None:
    app = App[None]()
    async with app.run_test() as pilot:
        results: list[object] = []
        await app.push_screen(CommentScreen(Content("Comment on x#1"), "kept as it was"), results.append)
        await settle(pilot)
        await pilot.press("escape")
        await settle(pilot)
        assert results == [None] and not isinstance(app.screen, DiscardChangesScreen)
        # typed, then undone back to what it opened with: nothing to lose
        dialog = CommentScreen(Content("Comment on x#1"))
        await app.push_screen(dialog, results.append)
        await settle(pilot)
        await pilot.press("a", "backspace", "escape")
        await settle(pilot)
        assert results == [None, None] and app.screen is not dialog


async def close_then_keep_editing(pilot: Any, editor: Any, text: TextArea, how: str) -> None:
    """Close `editor` by `how` (escape, or its Cancel button): the question, then keep editing."""
    typed = text.text
    if how == "escape":
        await pilot.press("escape")
    else:
        editor.query_one("#cancel", Button).press()
    await until(pilot, lambda: isinstance(pilot.app.screen, DiscardChangesScreen), f"the question ({how})")
    await pilot.press("enter")  # keep editing, focused
    await until(pilot, lambda: pilot.app.screen is editor, "back in the editor")
    assert text.text == typed


async def discard(pilot: Any, editor: Any) -> None:
    await pilot.press("escape")
    await until(pilot, lambda: isinstance(pilot.app.screen, DiscardChangesScreen), "the question")
    await pilot.click("#confirm")
    await until(pilot, lambda: pilot.app.screen is not editor and not isinstance(
        pilot.app.screen, DiscardChangesScreen), "the editor closed")


async def test_every_editor_asks_through_the_one_rule_whichever_way_it_is_closed() -> None:
    """The issue edit dialog, the comment editor and the wiki editor: changed text, then escape or the
    Cancel button, asks the same question (`DiscardChangesScreen`); keep editing returns to the text."""
    from tiny_sandbox import GATEWAY, Sandbox

    made = Sandbox()
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=made.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        edit = await open_edit(pilot, screen, REF)
        description = edit.query_one(TextEditor)
        description.focus()
        await pilot.press(*"more words")
        for how in ("escape", "cancel"):
            await close_then_keep_editing(pilot, edit, description, how)
        await discard(pilot, edit)

        screen.table.focus()
        await pilot.press("c")
        await until(pilot, lambda: isinstance(app.screen, CommentScreen), "the comment editor")
        comment = app.screen
        await pilot.press(*"a draft")
        for how in ("escape", "cancel"):
            await close_then_keep_editing(pilot, comment, comment.query_one(TextEditor), how)
        await discard(pilot, comment)

        wiki = WikiEditorScreen(made.project(GATEWAY), "home")
        await app.push_screen(wiki)
        await until(pilot, lambda: wiki.loaded, "the wiki page read")
        area = wiki.query_one(TextArea)
        area.focus()
        await pilot.press("x")
        await close_then_keep_editing(pilot, wiki, area, "escape")
        await discard(pilot, wiki)
        assert app.screen is screen
