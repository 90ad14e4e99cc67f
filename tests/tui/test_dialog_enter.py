"""Dialogs say what Enter does (issue 33): the footer of every dialog names Enter's action first and
follows the focus ("enter Cancel" on Cancel, "enter Delete" on Delete); Enter does the focused button; a
dialog opened for a change says "cancelled" when it is cancelled (the shared confirmation and form
mechanism, not each caller); a bulk change that replaces something says what, before it is confirmed."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from areas_fixtures import choose, open_issues
from dialog_catalogue import DIALOGS
from snapshot_apps import jump_to, make_app, messages, sandbox, settle, until
from test_issues_screen import SIZE, sandbox_issue
from textual.containers import ScrollableContainer, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Checkbox, Input, OptionList, RadioSet, Select, Static, TextArea

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.dialogs import BulkMenu, CommentScreen, PromptScreen
from labdeck.tui.widgets.footer import footer_entries

NOTHING_ON_ENTER = {"help", "deployment_detail", "job_results"}  # a key list, a text, a table of results


def enter_said(screen: Screen[Any]) -> str | None:
    """What the footer of `screen` (the screen under a dialog) says Enter does, None when it says nothing;
    the Enter key must be the first the footer shows."""
    shown, _help = footer_entries(screen)
    enters = [entry for entry in shown if entry.key == "enter"]
    if not enters:
        return None
    assert shown[0] is enters[0] and len(enters) == 1, [entry.key for entry in shown]
    return str(enters[0].binding.description)


async def open_over_projects(pilot: Any) -> Screen[Any]:
    await settle(pilot)
    await jump_to(pilot, "projects")
    await settle(pilot)
    return pilot.app.screen


async def test_a_confirmation_says_enter_cancels_and_follows_the_focus_to_delete() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        base = await open_over_projects(pilot)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("Delete tag", "Delete the tag v1.0?", confirm_label="Delete"),
                        answers.append)
        await until(pilot, lambda: enter_said(base) == "Cancel", "enter Cancel in the footer")
        await pilot.press("tab")  # to Delete
        await until(pilot, lambda: enter_said(base) == "Delete", "enter Delete in the footer")
        await pilot.press("shift+tab")  # back to Cancel
        await until(pilot, lambda: enter_said(base) == "Cancel", "enter Cancel again")
        await pilot.press("tab", "enter")  # Enter does the focused button: Delete
        await pilot.pause()
        assert answers == [True] and app.screen is base
        assert not any("cancelled" in said for said in messages(app))


async def test_enter_on_cancel_cancels_and_says_so() -> None:
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        base = await open_over_projects(pilot)
        answers: list[bool | None] = []
        app.push_screen(ConfirmScreen("Delete tag", "Delete the tag v1.0?", confirm_label="Delete"),
                        answers.append)
        await until(pilot, lambda: enter_said(base) == "Cancel", "enter Cancel in the footer")
        await pilot.press("enter")
        await pilot.pause()
        assert answers == [False] and "Delete tag: cancelled" in messages(app)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def over_projects() -> AsyncIterator[tuple[Any, Screen[Any]]]:
    """One app at 80x24 on `:projects` for every dialog of the catalogue: each test opens its dialog over
    the list and closes it again (opening a dialog only reads), so labdeck boots once, not per dialog."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        yield pilot, await open_over_projects(pilot)


@pytest.mark.parametrize("name", sorted(set(DIALOGS) - NOTHING_ON_ENTER))
@pytest.mark.asyncio(loop_scope="module")
async def test_every_dialog_names_what_enter_does_wherever_the_focus_is(name: str,
                                                                        over_projects: Any) -> None:
    """Each dialog of the catalogue, focus moved through all its controls: the footer's first key is enter,
    named after what it does there (a button: its label; a field: the dialog's submit, or the next field;
    a multi-line field: a new line; a list: choose). One app over `:projects` serves every dialog."""
    pilot, base = over_projects
    app = pilot.app
    dialog = DIALOGS[name]()
    await app.push_screen(dialog)
    await settle(pilot)
    try:
        seen: list[Any] = []
        for _ in range(12):
            focused = dialog.focused
            if focused in seen:
                break
            seen.append(focused)
            said = enter_said(base)
            scroller = type(focused) in (ScrollableContainer, VerticalScroll)
            if scroller:  # a form's scrolling part (focusable when it scrolls): enter does nothing there
                assert said is None, (name, said)
            else:
                assert said, f"{name}: nothing said for enter on {focused!r}"
            if scroller:
                pass
            elif isinstance(focused, Button):
                assert said == str(focused.label), (name, focused, said)
            elif isinstance(focused, TextArea):
                assert said == "New line"
            elif isinstance(focused, OptionList | Select | RadioSet):
                assert said == "Choose"
            elif isinstance(focused, Checkbox):
                assert said == "Toggle"
            else:
                assert isinstance(focused, Input) and said not in ("", "Cancel"), (name, said)
            await pilot.press("tab")
            await pilot.pause()
        assert len(seen) >= 1
    finally:
        while app.screen is not base:
            await app.pop_screen()
        await settle(pilot)


async def test_enter_on_a_focused_button_of_a_multi_line_form_does_that_button() -> None:
    """The comment editor keeps an enter typed while it opens (a new line); once open, enter on its
    Cancel button pressed nothing."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await open_over_projects(pilot)
        answers: list[object] = []
        dialog = CommentScreen(Content("Note"))
        app.push_screen(dialog, answers.append)
        await settle(pilot)
        dialog.query_one("#cancel", Button).focus()
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert answers == [None] and not isinstance(app.screen, CommentScreen)


async def test_a_cancelled_bulk_assign_says_cancelled_and_it_said_whom_it_replaces() -> None:
    """Issue 33: a bulk "Assign to alice" over issues assigned to bob opened on Cancel with `esc Cancel` in
    the footer; enter cancelled it without a word, and it never said it would replace bob."""
    asgi, factory = sandbox(ManualClock())
    bob = asgi.state.store.user_by_username("bob").id
    for path, iid in (("acme/platform/api-gateway", 5), ("acme/handbook", 1), ("root/sandbox-notes", 1)):
        sandbox_issue(asgi, path, iid).assignee_ids = [bob]
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        screen.table.focus()
        await pilot.press("ctrl+a", "b")
        await choose(pilot, BulkMenu, "assign")
        assert isinstance(app.screen, PromptScreen)
        app.screen.query_one(Input).value = "alice"
        await pilot.press("enter")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        said = str(question.query_one(".confirm-replaces", Static).render())
        assert said == "This replaces bob on 3 issues."
        assert enter_said(screen) == "Cancel"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and not app.jobs.jobs
        assert any(said.startswith("Assign to alice") and said.endswith(": cancelled")
                   for said in messages(app)), messages(app)


async def test_a_cancelled_write_form_says_cancelled() -> None:
    _asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        screen.table.focus()
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is screen
        assert any(said.startswith("Edit ") and said.endswith(": cancelled") for said in messages(app))
