"""Writes whose answer was lost, form by form (issue 13 item 8): a groups form (label, variable scope), a
project dialog (new tag), the protected-environment rule, time tracking, and a write no form holds (label
subscription). Against the tiny sandbox, through a transport that applies the write and cuts its answer
short ("truncated") or breaks before the server sees it ("before"):

- applied: the form closes, says "the server may have applied this ... Re-read: it was applied", and the
  list is read again (the new item is there, once);
- not applied: the form stays open with what was typed, says "it was not applied", and sending again adds
  it exactly once.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx
import pytest
from areas_fixtures import add_form, cells, open_groups, open_issues, open_view, show_tab
from lose_answers import LoseAnswers
from snapshot_apps import make_app, messages, press_for, sandbox, settle
from test_deployments_screen import Sandbox as DeploymentsSandbox
from test_deployments_screen import fill_rule, open_protected
from test_groups_screen import SIZE
from test_issues_screen import select
from test_project_view import Sandbox as ProjectSandbox
from textual.widgets import Input, Select

from labdeck.api.errors import AnswerLost
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.screens.deployments.protected_environments import AddRuleDialog
from labdeck.tui.screens.issues.time_tracking import TimeTrackingScreen
from labdeck.tui.screens.projects.dialogs import TagCreateDialog
from labdeck.tui.screens.projects.tags import TagsTab
from labdeck.tui.writes import MAY_HAVE_APPLIED, WriteForm

Factory = Callable[[Any], httpx.AsyncBaseTransport]
HOWS = [("truncated", "it was applied"), ("before", "it was not applied")]


def losing(factory: Factory, method: str, path: str, how: str) -> tuple[Factory, list[LoseAnswers]]:
    made: list[LoseAnswers] = []

    def wrapped(settings: Any) -> httpx.AsyncBaseTransport:
        made.append(LoseAnswers(factory(settings), method, path, how))
        return made[-1]

    return wrapped, made


async def until_closed_or_said(pilot: Any, form: WriteForm) -> None:
    """Wait for the form's write (and its re-read) to end: the form closed, or it says what it found."""
    for _ in range(40):
        await settle(pilot)
        if form.last_outcome is not None and (pilot.app.screen is not form or form.last_outcome.message):
            await settle(pilot)
            return
    raise AssertionError("the form's write did not end")


def said(app: Any, form: WriteForm, found: str) -> str:
    """The outcome's message, checked: it says the server may have applied it, and what the re-read found."""
    assert form.last_outcome is not None
    message = form.last_outcome.message
    assert MAY_HAVE_APPLIED in message and found in message, message
    return message


async def check_outcome(pilot: Any, form: WriteForm, found: str, kept: dict[str, str],
                        resend: Callable[[], Any]) -> None:
    """Applied: closed and said. Not applied: open, typed values kept, said in the form; then sent again."""
    app = pilot.app
    message = said(app, form, found)
    if found == "it was applied":
        assert app.screen is not form
        assert any(message in m for m in messages(app))
        return
    assert app.screen is form
    for selector, value in kept.items():
        assert form.query_one(selector, Input).value == value
    assert found in str(form.query_one(f"#{form.ERROR}").render())
    resend()
    for _ in range(40):
        await settle(pilot)
        if app.screen is not form:
            break
    assert app.screen is not form


@pytest.mark.parametrize(("how", "found"), HOWS)
async def test_groups_label_form(how: str, found: str) -> None:
    _asgi, inner = sandbox()
    factory, made = losing(inner, "POST", r"/groups/\d+/labels$", how)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        form = await add_form(pilot, screen, "labels")
        form.query_one("#field-name", Input).value = "urgent"
        form.query_one("#field-color", Input).value = "#ff0000"
        assert form.submit() is True
        await until_closed_or_said(pilot, form)
        await check_outcome(pilot, form, found, {"#field-name": "urgent", "#field-color": "#ff0000"},
                            form.submit)
        await settle(pilot)
        assert app.screen is screen
        assert cells(screen, "labels", 1).count("urgent") == 1  # the list was read again: there, once
        assert made[-1].seen == 1  # reached the server once (no duplicate)


async def test_groups_variable_scope_change_whose_retry_answers_404() -> None:
    """A PUT that moves a variable to another scope is applied, its answer lost; the automatic retry (same
    path, old scope) answers 404: the client says the outcome is unknown and the form re-reads."""
    asgi, inner = sandbox()
    factory, made = losing(inner, "PUT", r"/groups/\d+/variables/", "reset")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        form = await add_form(pilot, screen, "variables")
        form.query_one("#field-key", Input).value = "MOVING"
        form.query_one("#field-value", Input).value = "v1"
        assert form.submit() is True
        await until_closed_or_said(pilot, form)
        assert app.screen is screen and "MOVING" in cells(screen, "variables")
        table = screen.table("variables")
        table.focus()
        table.move_cursor([v.key for v in table.visible_rows].index("MOVING"))
        edit = await press_for(pilot, "e", FormScreen)
        edit.query_one("#field-environment_scope", Input).value = "production"
        assert edit.submit() is True
        await until_closed_or_said(pilot, edit)
        said(app, edit, "it was applied")
        assert isinstance(edit.last_outcome, object) and "404" in edit.last_outcome.message
        assert app.screen is screen
        acme = asgi.state.store.group_by_path("acme")
        moved = [v for v in asgi.state.store.areas["ci_variables"].groups[acme.id] if v.key == "MOVING"]
        assert [v.environment_scope for v in moved] == ["production"]
        assert made[-1].seen == 2  # applied, then the retry that found the old scope gone
        log = app.session.client.request_log.entries  # type: ignore[union-attr]
        assert any(e.method == "PUT" and e.error and MAY_HAVE_APPLIED in e.error for e in log)
        assert AnswerLost.__name__  # the client's error for it (tests/hostile/test_lost_writes.py)


@pytest.mark.parametrize(("how", "found"), HOWS)
async def test_project_tag_dialog(how: str, found: str) -> None:
    project = ProjectSandbox()
    factory, made = losing(project.factory, "POST", r"/repository/tags$", how)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(140, 44)) as pilot:
        view = await open_view(pilot, project, tab="tags")
        tags = view.query_one(TagsTab)
        tags.view.table.focus()
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, TagCreateDialog)
        dialog.query_one("#tag-name", Input).value = "v9.9.9"
        dialog.query_one("#tag-message", Input).value = "Release nine"
        dialog.query_one("#submit").press()
        await until_closed_or_said(pilot, dialog)
        await check_outcome(pilot, dialog, found, {"#tag-name": "v9.9.9", "#tag-message": "Release nine"},
                            lambda: dialog.query_one("#submit").press())
        await settle(pilot)
        assert [t.name for t in tags.view.table.rows].count("v9.9.9") == 1
        assert made[-1].seen == 1


@pytest.mark.parametrize(("how", "found"), HOWS)
async def test_protected_environment_rule(how: str, found: str) -> None:
    deployments = DeploymentsSandbox()
    factory, made = losing(deployments.factory, "POST", r"/protected_environments$", how)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_protected(pilot, deployments)
        dialog = await fill_rule(pilot, "canary", "role", level=60)
        assert isinstance(dialog, AddRuleDialog)
        await until_closed_or_said(pilot, dialog)

        def resend() -> None:
            dialog.query_one("#rule-add").press()  # type: ignore[attr-defined]

        if app.screen is dialog:  # kept as chosen
            assert dialog.query_one("#rule-level", Select).value == 60
        await check_outcome(pilot, dialog, found, {"#rule-environment": "canary"}, resend)
        await settle(pilot)
        pid = deployments.project.id
        assert [r.access_level for r in deployments.data.protected[(pid, "canary")].rules] == [60]
        assert [(r.environment, r.level.kind) for r in screen.table.rows].count(("canary", "role")) == 1
        assert made[-1].seen == 1


@pytest.mark.parametrize(("how", "found"), HOWS)
async def test_time_tracking(how: str, found: str) -> None:
    from test_issues_screen import sandbox_issue

    asgi, inner = sandbox(ManualClock())
    factory, made = losing(inner, "POST", r"/add_spent_time$", how)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(160, 45)) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        await select(pilot, screen, "acme/platform/api-gateway#5")
        screen.table.focus()
        await pilot.press("t")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, TimeTrackingScreen)
        spent = sandbox_issue(asgi, "acme/platform/api-gateway", 5).total_time_spent
        dialog.query_one("#issues-time-duration", Input).value = "1h"
        dialog.query_one("#add_spent_time").press()
        await until_closed_or_said(pilot, dialog)
        await check_outcome(pilot, dialog, found, {"#issues-time-duration": "1h"},
                            lambda: dialog.query_one("#add_spent_time").press())
        await settle(pilot)
        assert sandbox_issue(asgi, "acme/platform/api-gateway", 5).total_time_spent == spent + 3600  # once
        assert made[-1].seen == 1


async def test_a_write_no_form_holds_says_so_and_rereads() -> None:
    """Subscribing to a label (a POST from a key, no form): its answer cut short is a warning that the
    server may have applied it, and the tab is read again; the app keeps running."""
    _asgi, inner = sandbox()
    factory, _made = losing(inner, "POST", r"/subscribe$", "truncated")
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "labels")
        screen.table("labels").focus()
        requests = len(app.session.client.request_log)  # type: ignore[union-attr]
        await pilot.press("b")
        for _ in range(10):
            await settle(pilot)
        assert any(MAY_HAVE_APPLIED in m for m in messages(app)), messages(app)
        log = app.session.client.request_log.entries  # type: ignore[union-attr]
        assert any(e.method == "GET" and "/labels" in e.path for e in log[requests:])  # read again
        assert app.is_running and app.return_code is None


@pytest.mark.parametrize(("how", "found"), HOWS)
async def test_wiki_editor(how: str, found: str) -> None:
    """A new wiki page whose POST's answer was lost: applied -> saved (the page is found by its title and
    text); not applied -> the text is kept and ctrl+s sends it again, once."""
    from textual.widgets import TextArea

    from labdeck.tui.screens.projects.wiki import WikiEditorScreen

    project = ProjectSandbox()
    factory, made = losing(project.factory, "POST", r"/wikis$", how)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(140, 44)) as pilot:
        await open_view(pilot, project)
        await app.push_screen(WikiEditorScreen(project.project("acme/platform/api-gateway"), None))
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, WikiEditorScreen)
        editor.query_one("#wiki-title", Input).value = "Runbook"
        editor.query_one(TextArea).load_text("Restart the gateway.")
        await pilot.press("ctrl+s")
        for _ in range(10):
            await settle(pilot)
        status = str(editor.query_one("#wiki-status").render())
        notes = messages(app)
        assert any(MAY_HAVE_APPLIED in m and found in m for m in notes), notes
        assert editor.query_one(TextArea).text == "Restart the gateway."
        if found == "it was applied":
            assert "Saved Runbook" in status and not editor.dirty
        else:
            assert "Your text is kept" in status and editor.dirty
            await pilot.press("ctrl+s")
            for _ in range(10):
                await settle(pilot)
            assert "Saved Runbook" in str(editor.query_one("#wiki-status").render())
        pid = project.store.project_by_path("acme/platform/api-gateway").id
        pages = project.store.areas["wikis"].pages[pid]
        assert [p.title for p in pages.values()].count("Runbook") == 1
        assert made[-1].seen == 1


@pytest.mark.parametrize(("how", "found"), HOWS)
async def test_project_variables_tab(how: str, found: str) -> None:
    """The project Variables tab's form (shared with the instance variables screen: `VariableListKeys`)."""
    from labdeck.tui.kit.variables_pane import VariablesPane as VariablesTab

    project = ProjectSandbox()
    factory, made = losing(project.factory, "POST", r"/projects/\d+/variables$", how)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=(140, 44)) as pilot:
        view = await open_view(pilot, project, tab="variables")
        tab = view.query_one(VariablesTab)
        tab.view.table.focus()
        await pilot.press("a")
        await pilot.pause()
        form = app.screen
        assert isinstance(form, FormScreen)
        form.query_one("#field-key", Input).value = "LOST_AND_FOUND"
        form.query_one("#field-value", Input).value = "v1"
        assert form.submit() is True
        await until_closed_or_said(pilot, form)
        await check_outcome(pilot, form, found, {"#field-key": "LOST_AND_FOUND", "#field-value": "v1"},
                            form.submit)
        await settle(pilot)
        gateway = project.store.project_by_path("acme/platform/api-gateway")
        stored = project.store.areas["ci_variables"].projects[gateway.id]
        assert [v.key for v in stored].count("LOST_AND_FOUND") == 1
        assert [v.key for v in tab.view.table.rows].count("LOST_AND_FOUND") == 1
        assert made[-1].seen == 1
        # the check after the lost answer read that one variable (of the form's scope), not the list
        checks = [e for e in app.request_log.entries if e.method == "GET" and "LOST_AND_FOUND" in e.path]
        assert checks and all(e.path.split("?")[0].endswith("/variables/LOST_AND_FOUND") for e in checks)
        assert all(e.error is None or e.expected for e in checks)  # its 404 (not applied) is no error
