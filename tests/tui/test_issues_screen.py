"""Pilot tests of `:issues` against the tiny sandbox: the view opens from `:`, the filter bar compiles the
query language (errors shown, nothing sent), saved views open it with their query and scope, the detail
pane, a bulk action as a job with one issue refused, time tracking (a bad duration never sent), and the
single-issue actions (edit, comment, promote, copy reference)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from areas_fixtures import choose, open_issues
from rich.console import Console
from snapshot_apps import jump_to, make_app, messages, press_for, sandbox, sandbox_settings, settle
from textual.widgets import Button, Input

from labdeck.api.models.issues import Issue
from labdeck.config.files import Config, SavedView
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.seed.issues import issues_data
from labdeck.tui import links
from labdeck.tui.app import LabdeckApp
from labdeck.tui.jobs import Job
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.issues.dialogs import (
    BulkMenu,
    EditIssueScreen,
    LinkMenu,
    PromptScreen,
    links_in,
)
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.issues.time_tracking import TimeTrackingScreen
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.text_editor import TextEditor

SIZE = (160, 45)
ALICE = "glpat-sandbox-alice"


def refs(screen: IssuesScreen) -> set[str]:
    return {issue.reference for issue in screen.table.visible_rows}


def sandbox_issue(asgi: Any, path: str, iid: int) -> Any:
    store = asgi.state.store
    return issues_data(store).by_iid(store.project_by_path(path).id, iid)


async def select(pilot: Any, screen: IssuesScreen, reference: str) -> Issue:
    rows = list(screen.table.visible_rows)
    index = next(i for i, issue in enumerate(rows) if issue.reference == reference)
    screen.table.move_cursor(index)
    await pilot.pause(0.2)
    await settle(pilot, rounds=3)
    return rows[index]


async def open_edit(pilot: Any, screen: IssuesScreen, reference: str) -> EditIssueScreen:
    """`e` on the issue `reference`: its edit dialog."""
    await select(pilot, screen, reference)
    screen.table.focus()
    await pilot.press("e")
    await pilot.pause()
    dialog = pilot.app.screen
    assert isinstance(dialog, EditIssueScreen)
    return dialog


async def test_jump_opens_the_issues_view() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        await jump_to(pilot, "issues")
        await settle(pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, IssuesScreen)
        assert len(screen.table.rows) == 15  # root, scope all: every issue but the archived project's


async def submit(pilot: Any, screen: IssuesScreen, query: str, scope: str | None = None) -> None:
    screen.action_focus_query()
    screen.query_one("#issues-query", Input).value = query
    if scope is not None:
        screen.query_one("#issues-scope", Input).value = scope
    await pilot.press("enter")
    await settle(pilot, rounds=3)


def query_error(screen: IssuesScreen) -> str:
    return str(screen.query_one("#issues-query-error").render())


async def test_filter_bar_compiles_the_query_language(sandbox_app: LabdeckApp) -> None:
    app = sandbox_app
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot)
        screen.table.focus()
        await pilot.press("f")
        assert screen.query_one("#issues-query", Input).has_focus
        await submit(pilot, screen, "label:bug -label:frontend state:opened")
        bugs = {"acme/platform/api-gateway#1", "acme/platform/api-gateway#3"}
        assert refs(screen) == bugs and screen.table.has_focus
        sent = len(app.session.client.request_log)  # type: ignore[union-attr]
        await submit(pilot, screen, "colour:red")
        assert screen.has_class("-query-error") and "unknown filter 'colour'" in query_error(screen)
        assert refs(screen) == bugs  # unchanged
        assert len(app.session.client.request_log) == sent  # type: ignore[union-attr]  # nothing sent
        await submit(pilot, screen, "in:title gateway", scope="acme")  # the group listing has no `in`
        assert "the group issue listing has no in parameter" in query_error(screen)
        await submit(pilot, screen, "assignee:none")
        assert not screen.has_class("-query-error") and query_error(screen) == ""
        assert refs(screen) == {"acme/platform/api-gateway#5", "acme/platform/web-portal#1",
                                "acme/platform/web-portal#3", "acme/handbook#1"}
        await submit(pilot, screen, "", scope="")
        assert len(screen.table.rows) == 15


async def test_saved_view_from_the_palette(tmp_path: Path) -> None:
    from snapshot_apps import palette_choose

    config = Config(path=tmp_path / "config.toml",
                    views={"platform-bugs": SavedView("platform-bugs", "label:bug", "group:acme/platform")})
    app = make_app(config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=3)
        await palette_choose(pilot, "platform-bugs", "Saved view: platform-bugs")
        await settle(pilot, rounds=3)
        screen = app.screen
        assert isinstance(screen, IssuesScreen)
        assert screen.query_one("#issues-query", Input).value == "label:bug"
        assert screen.query_one("#issues-scope", Input).value == "acme/platform"
        assert refs(screen) == {"acme/platform/api-gateway#1", "acme/platform/api-gateway#3",
                                "acme/platform/web-portal#2"}


async def test_detail_pane_shows_labels_time_merge_requests_and_notes(
        monkeypatch: pytest.MonkeyPatch, sandbox_app: LabdeckApp) -> None:
    app = sandbox_app
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:backend")
        issue = await select(pilot, screen, "acme/platform/api-gateway#1")
        view = screen.query_one("#issues-view", ResourceView)
        assert view.detail_shown and screen.extras.get(issue.id) is not None
        console = Console(width=100, record=True)
        console.print(screen.detail_for(issue))
        plain = console.export_text()
        assert " bug " in plain and " priority::high " in plain
        assert "estimate 3h 30m · spent 1h" in plain
        assert "acme/platform/api-gateway!1 Fix 502 under load" in plain
        assert "Closed by" in plain and "bob: Looking into it" in plain
        assert "Runbook: https://example.com/runbook" in plain  # shown, never opened by itself
        opened: list[str] = []
        monkeypatch.setattr(links, "open_in_browser", lambda url: opened.append(url) or True)
        screen.table.focus()
        menu = await press_for(pilot, "l", LinkMenu)
        assert menu.urls == ["https://example.com/runbook", "https://example.com/graphs"]
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and opened == []  # another host: asks first
        await pilot.click("#confirm")
        await pilot.pause()
        assert opened == ["https://example.com/runbook"]


async def answer_prompt(pilot: Any, value: str) -> None:
    pilot.app.screen.query_one(Input).value = value
    await pilot.press("enter")
    await pilot.pause()


async def confirm_job(pilot: Any) -> Job:
    """Press the confirm button of the bulk job's confirmation and wait for the job."""
    await pilot.click("#confirm")
    await settle(pilot, rounds=3)
    job = pilot.app.jobs.jobs[-1]
    await pilot.app.jobs.wait(job)
    return job


async def test_bulk_close_with_one_issue_refused() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        assert refs(screen) == {"acme/platform/api-gateway#5", "acme/handbook#1", "root/sandbox-notes#1"}
        screen.table.focus()
        await pilot.press("ctrl+a", "b")
        await choose(pilot, BulkMenu, "close")
        assert isinstance(app.screen, ConfirmScreen)
        named = app.screen.message.plain.rpartition("\n\n")[2]  # the issues it acts on (issue 24)
        assert named.startswith("3 issues: ") and set(named.removeprefix("3 issues: ").split(", ")) == {
            "acme/platform/api-gateway#5", "acme/handbook#1", "root/sandbox-notes#1"}
        job = await confirm_job(pilot)
        await settle(pilot, rounds=3)
        assert job.done == 3 and len(job.results) == 3
        refused = [(r.item, r.message) for r in job.failed_items]
        assert refused == [("root/sandbox-notes#1", "403 Forbidden")]
        assert sandbox_issue(asgi, "acme/platform/api-gateway", 5).state == "closed"
        assert sandbox_issue(asgi, "acme/handbook", 1).state == "closed"
        assert sandbox_issue(asgi, "root/sandbox-notes", 1).state == "opened"
        rows = {i.reference: i for i in screen.table.rows}
        assert rows["acme/platform/api-gateway#5"].state == "closed" and not screen.table.marked_rows
        assert rows["acme/handbook#1"].labels[0].color == "#5cb85c"  # colours kept after the PUT


async def test_bulk_add_labels_asks_for_them() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:ux")
        screen.table.focus()
        await pilot.press("space", "b")
        await choose(pilot, BulkMenu, "add_labels")
        assert isinstance(app.screen, PromptScreen)
        await answer_prompt(pilot, "triaged, needs-design")
        await confirm_job(pilot)
        assert sandbox_issue(asgi, "acme/platform/web-portal", 2).labels[-2:] == ["triaged", "needs-design"]


async def test_bulk_assign_resolves_usernames() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        screen.table.focus()
        await pilot.press("ctrl+a", "b")
        await choose(pilot, BulkMenu, "assign")
        await answer_prompt(pilot, "@erin, nobody")
        job = await confirm_job(pilot)
        assert [(r.item, r.ok, r.message) for r in job.results if r.item == "@nobody"] == [
            ("@nobody", False, "unknown user")]
        assert sum(r.ok for r in job.results) == 3 and job.done == 3
        erin = asgi.state.store.user_by_username("erin").id
        assert sandbox_issue(asgi, "acme/handbook", 1).assignee_ids == [erin]


async def press(pilot: Any, selector: str) -> None:
    """Press a dialog button (a Button ignores a second click that follows the first too closely)."""
    pilot.app.screen.query_one(selector, Button).press()
    await pilot.pause()


async def test_time_tracking_checks_durations_before_sending() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        await select(pilot, screen, "acme/platform/api-gateway#5")
        screen.table.focus()
        dialog = await press_for(pilot, "t", TimeTrackingScreen)
        sent = len(app.session.client.request_log)  # type: ignore[union-attr]
        dialog.query_one("#issues-time-duration", Input).value = "3 parsecs"
        await press(pilot, "#time_estimate")
        assert app.screen is dialog  # still open, with the reason
        assert "unknown unit 'parsecs'" in str(dialog.query_one("#issues-time-error").render())
        dialog.query_one("#issues-time-duration", Input).value = "-1h"
        await press(pilot, "#time_estimate")
        assert "cannot be negative" in str(dialog.query_one("#issues-time-error").render())
        assert len(app.session.client.request_log) == sent  # type: ignore[union-attr]
        dialog.query_one("#issues-time-duration", Input).value = "1h 30m"
        await press(pilot, "#time_estimate")
        await settle(pilot, rounds=3)
        assert sandbox_issue(asgi, "acme/platform/api-gateway", 5).time_estimate == 5400
        await pilot.press("t")
        await pilot.pause()
        app.screen.query_one("#issues-time-duration", Input).value = "1d"
        await press(pilot, "#add_spent_time")
        await settle(pilot, rounds=3)
        assert sandbox_issue(asgi, "acme/platform/api-gateway", 5).total_time_spent == 8 * 3600
        row = next(i for i in screen.table.rows if i.reference == "acme/platform/api-gateway#5")
        assert row.time_stats is not None and row.time_stats.human_time_estimate == "1h 30m"
        assert row.time_stats.human_total_time_spent == "1d"


async def test_time_tracking_adds_spent_time_by_default_and_says_so() -> None:
    """ctrl+s (and enter in the duration) log spent time, what operators mostly do, and the form says it;
    the estimate is only set by its own button."""
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:documentation")
        await select(pilot, screen, "acme/platform/api-gateway#5")
        screen.table.focus()
        dialog = await press_for(pilot, "t", TimeTrackingScreen)
        said = str(dialog.query_one("#issues-time-default").render())
        assert "ctrl+s: add to the time spent" in said and "Set estimate: replace it" in said
        dialog.query_one("#issues-time-duration", Input).value = "2h"
        await pilot.press("ctrl+s")
        await settle(pilot)
        issue = sandbox_issue(asgi, "acme/platform/api-gateway", 5)
        assert (issue.total_time_spent, issue.time_estimate) == (2 * 3600, 0)
        dialog = await press_for(pilot, "t", TimeTrackingScreen)
        dialog.query_one("#issues-time-duration", Input).focus()
        await pilot.press("3", "0", "m", "enter")
        await settle(pilot)
        issue = sandbox_issue(asgi, "acme/platform/api-gateway", 5)
        assert (issue.total_time_spent, issue.time_estimate) == (2 * 3600 + 1800, 0)


async def test_edit_comment_promote_and_copy(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    asgi, factory = sandbox(ManualClock())
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        await open_edit(pilot, screen, "acme/platform/api-gateway#2")
        app.screen.query_one("#issues-edit-title", Input).value = "Add RateLimit-* headers"
        app.screen.query_one("#issues-edit-labels", Input).value = "feature, backend, api"
        await pilot.click("#save")
        await settle(pilot, rounds=3)
        issue = sandbox_issue(asgi, "acme/platform/api-gateway", 2)
        assert issue.title == "Add RateLimit-* headers" and issue.labels == ["feature", "backend", "api"]
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one(TextEditor).text = "On it"
        await pilot.press("ctrl+s")
        await settle(pilot, rounds=3)
        notes = issues_data(asgi.state.store).notes[issue.id]
        assert notes[-1].body == "On it"
        assert issue.state == "opened"
        await pilot.press("p")
        await pilot.pause()
        question = app.screen
        assert isinstance(question, ConfirmScreen)
        said = str(question.query_one(".confirm-message").render())  # of an open issue: it will be (issue 34)
        assert "acme/platform/api-gateway#2" in said and "will be closed" in said and "is closed" not in said
        await pilot.click("#confirm")
        await settle(pilot, rounds=3)
        assert issue.epic_id is not None and issue.state == "closed"
        await pilot.press("y")
        await pilot.pause()
        assert any("acme/platform/api-gateway#2" in str(n.message) for n in app._notifications)
        opened: list[str] = []
        monkeypatch.setattr(links, "open_in_browser", lambda url: opened.append(url) or True)
        await pilot.press("o")
        await pilot.pause()
        assert opened == ["http://sandbox.test/acme/platform/api-gateway/-/issues/2"]


async def test_hostile_issue_text_renders_literally() -> None:
    from labdeck.sandbox.seed.issues import add_issue

    asgi, factory = sandbox(ManualClock())
    store = asgi.state.store
    project = store.project_by_path("acme/platform/api-gateway")
    add_issue(store, project, "[@click=app.quit]boom[/bold] \x1b]52;c;aGk=\x07", 1, labels=["[b]x"],
              description="[@click=app.quit]click me[/] and \x1b[2J <script>")
    store.touch()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, '"boom"')
        issue = await select(pilot, screen, "acme/platform/api-gateway#6")
        assert issue.title.startswith("[@click=app.quit]boom[/bold]") and "\x1b" not in issue.title
        line = screen.table.line_text(1)
        assert "[@click=app.quit]bo" in line  # literal (the column is narrow)
        console = Console(width=120, record=True)
        console.print(screen.detail_for(issue))
        plain = console.export_text()
        assert "[@click=app.quit]click me[/]" in plain and "\x1b" not in plain
        await pilot.pause()
        assert app.is_running and isinstance(app.screen, IssuesScreen)


async def test_revisiting_within_the_ttl_sends_no_request(sandbox_app: LabdeckApp) -> None:
    app = sandbox_app
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:backend")
        await select(pilot, screen, "acme/platform/api-gateway#1")
        log = app.session.client.request_log  # type: ignore[union-attr]
        sent = len(log)
        app.pop_screen()
        again = await open_issues(pilot, "label:backend")
        await select(pilot, again, "acme/platform/api-gateway#1")
        assert {i.reference for i in again.table.rows} == {"acme/platform/api-gateway#1",
                                                           "acme/platform/api-gateway#2"}
        assert again.extras and len(log) == sent  # rows and detail from the cache
        again.refresh_data()
        await settle(pilot, rounds=3)
        await pilot.pause(0.2)
        await settle(pilot, rounds=3)
        assert len(log) > sent


def test_label_chips_use_only_hex_colours() -> None:
    from labdeck.api.models.issues import LabelDetail
    from labdeck.tui.screens.issues.render import label_chips

    chips = label_chips([LabelDetail(name="bug", color="#d9534f", text_color="#FFFFFF"),
                         LabelDetail(name="[b]odd", color="red; blink", text_color=None)])
    assert chips.plain == " bug   [b]odd "
    first, second = chips.spans
    assert str(first.style.bgcolor.name) == "#d9534f" and str(first.style.color.name) == "#ffffff"  # type: ignore[union-attr]
    assert second.style.reverse and second.style.bgcolor is None  # type: ignore[union-attr]


def test_links_in_markdown() -> None:
    text = "See [the docs](https://docs.example.com/guide) and https://x.test/p?q=1.\nAgain https://x.test/p?q=1"
    assert links_in(text) == ["https://docs.example.com/guide", "https://x.test/p?q=1"]
    assert links_in("javascript:alert(1) ftp://x.test") == []


async def test_a_labels_edit_never_removes_a_label_the_operator_did_not_remove() -> None:
    """Issue 22 item 12: Tab selected the whole labels field and a key typed at once replaced every label;
    the form sent `labels=` with what the field held. Now it sends `add_labels`/`remove_labels` from the
    difference, and names what it removes before it saves."""
    from textual.widgets import Button, Static

    asgi, factory = sandbox(ManualClock())
    app = make_app(settings=sandbox_settings(ALICE), transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot, "label:feature label:backend")
        dialog = await open_edit(pilot, screen, "acme/platform/api-gateway#2")
        await pilot.press("tab", "x")  # into the labels field, then a key: appended, not replacing
        assert dialog.query_one("#issues-edit-labels", Input).value.startswith("feature, backend")
        dialog.query_one("#issues-edit-labels", Input).value = "feature, api"
        await pilot.click("#save")
        await settle(pilot)
        assert app.screen is dialog  # the removal is named first; nothing sent yet
        assert "removes the label(s) backend" in str(dialog.query_one("#issues-edit-error", Static).render())
        issue = sandbox_issue(asgi, "acme/platform/api-gateway", 2)
        assert "backend" in issue.labels
        save = dialog.query_one("#save", Button)
        while save.has_class("-active"):  # a button takes no second click while it shows the first
            await pilot.pause()
        await pilot.click("#save")
        await settle(pilot)
        assert issue.labels.count("feature") == 1 and "api" in issue.labels and "backend" not in issue.labels


async def test_an_emptied_list_shows_no_issues_detail() -> None:
    """Issue 24: a list emptied by the local filter kept the previous issue's detail pane."""
    from labdeck.tui.widgets.resource_view import ResourceView

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_issues(pilot)
        view = screen.query_one("#issues-view", ResourceView)
        assert str(view.detail_pane.render()).strip()  # the first issue's detail
        screen.table.set_filter("no issue is called this")
        await settle(pilot)
        assert screen.table.cursor_row is None
        assert str(view.detail_pane.render()).strip() == ""
        screen.table.focus()
        await pilot.press("c")  # `c` on the empty list says why nothing opens (it did nothing)
        await pilot.pause()
        assert "No issue under the cursor" in messages(app)
        assert app.screen is screen
