"""Pilot tests of the project view against the tiny sandbox: opening it from `:projects`, the wiki editor
(a save that fails is retried without losing text; leaving with changes asks first; a new page), tags
(a creation refused with the server's message, an annotated one, search with `^`, deletion), Pages
domains with expiry highlighting, error tracking, and a fork job polled to completion."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import httpx
from areas_fixtures import open_view
from snapshot_apps import jump_to, make_app, press_for, settle
from textual.widgets import Input, Static, TextArea
from tiny_sandbox import GATEWAY
from tiny_sandbox import Sandbox as TinySandbox

from labdeck.tui.jobs import JobState
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.dialogs import ForkDialog, TagCreateDialog
from labdeck.tui.screens.projects.error_tracking import ErrorTrackingTab
from labdeck.tui.screens.projects.forks import ForksTab
from labdeck.tui.screens.projects.pages import PagesTab, expiry_text
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.projects.tags import TagsTab
from labdeck.tui.screens.projects.view import ProjectViewScreen
from labdeck.tui.screens.projects.wiki import WikiEditorScreen, WikiTab

SIZE = (140, 44)


class Sandbox(TinySandbox):
    """A tiny sandbox on the real clock (forks finish after `async_delay` seconds), whose transport fails
    the next `fail_next[method]` requests of a method with a 500, then behaves."""

    def __init__(self, async_delay: float = 0.0) -> None:
        super().__init__(real_clock=True, async_delay=async_delay)
        self.fail_next: dict[str, int] = {}

    def factory(self, settings: Any) -> httpx.AsyncBaseTransport:
        sandbox = self

        class Flaky(httpx.ASGITransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                if sandbox.fail_next.get(request.method, 0) > 0:
                    sandbox.fail_next[request.method] -= 1
                    return httpx.Response(500, json={"message": "500 Internal Server Error"})
                return await super().handle_async_request(request)

        return Flaky(self.asgi)


def static_text(screen: Any, selector: str) -> str:
    return str(screen.query_one(selector, Static).render())


async def test_enter_on_a_project_opens_its_view() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        rows = screen.table.rows
        target = next(i for i, p in enumerate(rows) if p.path_with_namespace == GATEWAY)
        screen.table.move_cursor(target)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, ProjectViewScreen)
        assert app.screen.project.path_with_namespace == GATEWAY
        wiki = app.screen.query_one(WikiTab)
        assert "home" in [p.slug for p in wiki.view.table.rows]


async def test_wiki_save_fails_then_is_retried_without_losing_text() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_view(pilot, sandbox)
        project = sandbox.store.project_by_path(GATEWAY)
        await app.push_screen(WikiEditorScreen(sandbox.project(GATEWAY), "docs/faq"))
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, WikiEditorScreen)
        area = editor.query_one(TextArea)
        assert area.text == "**Why?** Because."
        area.focus()
        area.move_cursor(area.document.end)
        await pilot.press(*" Typed")
        typed = "**Why?** Because. Typed"
        assert area.text == typed and editor.dirty
        sandbox.fail_next["PUT"] = 1
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Save failed" in static_text(editor, "#wiki-status")
        assert "ctrl+s to retry" in static_text(editor, "#wiki-status")
        assert area.text == typed and editor.dirty  # nothing typed was lost
        assert app.screen is editor
        page = sandbox.store.areas["wikis"].pages[project.id]["docs/faq"]
        assert page.content == "**Why?** Because."  # the server has the old text
        await pilot.press("ctrl+s")  # retry
        await settle(pilot)
        assert page.content == typed and not editor.dirty
        assert "Saved docs/faq" in static_text(editor, "#wiki-status")
        await pilot.press("escape")  # nothing unsaved: leaves at once
        await settle(pilot)
        assert isinstance(app.screen, ProjectViewScreen)


async def test_leaving_with_unsaved_changes_asks_first() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_view(pilot, sandbox)
        await app.push_screen(WikiEditorScreen(sandbox.project(GATEWAY), "home"))
        await settle(pilot)
        editor = app.screen
        area = editor.query_one(TextArea)
        area.focus()
        await pilot.press("x")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")  # cancel: stay, with the text
        await pilot.pause()
        assert app.screen is editor and area.text.startswith("x")
        await pilot.press("escape")
        await pilot.pause()
        app.screen.query_one("#confirm").press()
        await settle(pilot)
        assert isinstance(app.screen, ProjectViewScreen)


async def test_new_wiki_page_refused_then_saved() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox)
        wiki = view.query_one(WikiTab)
        wiki.view.table.focus()
        await pilot.press("n")
        await settle(pilot)
        editor = app.screen
        assert isinstance(editor, WikiEditorScreen)
        editor.query_one("#wiki-title", Input).value = "home"  # taken
        editor.query_one(TextArea).load_text("# Fresh")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert "Duplicate page" in static_text(editor, "#wiki-status")
        assert editor.query_one(TextArea).text == "# Fresh"
        editor.query_one("#wiki-title", Input).value = "guides/Fresh start"
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert editor.slug == "guides/Fresh-start"
        await pilot.press("escape")
        await settle(pilot)
        assert "guides/Fresh-start" in [p.slug for p in wiki.view.table.rows]


async def test_tag_creation_refused_with_its_message_then_created() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="tags")
        tags = view.query_one(TagsTab)
        assert [t.name for t in tags.view.table.rows] == ["v1.0.0-rc1", "v0.2.0", "v0.1.0"]
        tags.view.table.focus()
        dialog = await press_for(pilot, "n", TagCreateDialog)
        dialog.query_one("#tag-name", Input).value = "v0.1.0"
        dialog.query_one("#tag-message", Input).value = "Again"
        dialog.query_one("#submit").press()
        await settle(pilot)
        assert app.screen is dialog and dialog.error_message == "Tag v0.1.0 already exists"
        assert dialog.query_one("#tag-message", Input).value == "Again"  # what was typed stays
        dialog.query_one("#tag-name", Input).value = "v2.0.0"
        dialog.query_one("#submit").press()
        await settle(pilot)
        assert isinstance(app.screen, ProjectViewScreen)
        await settle(pilot)
        created = next(t for t in tags.view.table.rows if t.name == "v2.0.0")
        assert created.annotated and created.message == "Again"


async def test_tag_search_and_delete() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="tags")
        tags = view.query_one(TagsTab)
        search = tags.query_one("#tags-search", Input)
        search.focus()
        search.value = "^v0"
        await pilot.press("enter")
        await settle(pilot)
        assert [t.name for t in tags.view.table.rows] == ["v0.2.0", "v0.1.0"]
        search.focus()
        search.value = "rc1$"
        await pilot.press("enter")
        await settle(pilot)
        assert [t.name for t in tags.view.table.rows] == ["v1.0.0-rc1"]
        tags.view.table.focus()
        await pilot.press("delete")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        app.screen.query_one("#confirm").press()
        await settle(pilot)
        assert tags.view.table.rows == []
        project = sandbox.store.project_by_path(GATEWAY)
        assert "v1.0.0-rc1" not in sandbox.store.areas["repository_tags"].repositories[project.id].tags


async def test_pages_domains_show_and_highlight_expiry() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, "pages", "acme/platform/web-portal")
        pages = view.query_one(PagesTab)
        rows = {d.domain: d for d in pages.view.table.rows}
        now = datetime.now(UTC)
        old = expiry_text(rows["old.acme.test"], now)
        assert old.plain.startswith("expired") and old.style == "bold red"
        soon = expiry_text(rows["soon.acme.test"], now)
        assert soon.plain.startswith("in ") and soon.style == "yellow"
        assert expiry_text(rows["portal.acme.test"], now).style == "green"
        assert expiry_text(rows["plain.acme.test"], now).plain == "no certificate"


async def test_pages_domain_added_from_pem_files(tmp_path: Any) -> None:
    from datetime import timedelta

    from labdeck.sandbox.seed.certificates import make_certificate, make_private_key

    now = datetime.now(UTC)
    pem = make_certificate([("CN", "new.acme.test")], now, now + timedelta(days=5))
    (tmp_path / "cert.pem").write_text(pem)
    (tmp_path / "key.pem").write_text(make_private_key("new"))
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, "pages", "acme/platform/web-portal")
        pages = view.query_one(PagesTab)
        pages.view.table.focus()
        await pilot.press("n")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#domain-name", Input).value = "new.acme.test"
        dialog.query_one("#domain-cert", Input).value = str(tmp_path / "missing.pem")
        dialog.query_one("#submit").press()
        await settle(pilot)
        assert app.screen is dialog and "Cannot read the file" in dialog.error_message
        dialog.query_one("#domain-cert", Input).value = str(tmp_path / "cert.pem")
        dialog.query_one("#domain-key", Input).value = str(tmp_path / "key.pem")
        dialog.query_one("#submit").press()
        await settle(pilot)
        await settle(pilot)
        added = next(d for d in pages.view.table.rows if d.domain == "new.acme.test")
        assert added.expiry_state(now) == "soon"


async def test_error_tracking_toggle() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="errors")
        tab = view.query_one(ErrorTrackingTab)
        assert "enabled" in static_text(tab, "#error-tracking-text")
        tab.focus()
        await pilot.press("t")
        await pilot.pause()
        app.screen.query_one("#confirm").press()
        await settle(pilot)
        assert "disabled" in static_text(tab, "#error-tracking-text")
        project = sandbox.store.project_by_path(GATEWAY)
        assert sandbox.store.areas["error_tracking"].settings[project.id].active is False


async def test_fork_job_is_polled_to_completion() -> None:
    sandbox = Sandbox(async_delay=0.8)  # still running after one pause, even on a busy machine
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="forks")
        forks = view.query_one(ForksTab)
        forks.poll_initial = 0.05
        assert forks.view.table.rows == []
        dialog = await press_for(pilot, "f", ForkDialog)
        dialog.query_one("#fork-namespace", Input).value = "opensource"
        dialog.query_one("#submit").press()
        await pilot.pause()
        job = forks.last_job
        assert job is not None and not job.state.finished
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED, job.error
        assert job.done == 3 and job.results[0].item == "opensource/api-gateway"
        fork = sandbox.store.project_by_path("opensource/api-gateway")
        assert fork.import_status == "finished" and fork.forked_from_id is not None
        await settle(pilot)
        assert [p.path_with_namespace for p in forks.view.table.rows] == ["opensource/api-gateway"]


async def test_attachment_upload_inserts_markdown_and_links_ask_first(tmp_path: Any,
                                                                    monkeypatch: Any) -> None:
    from textual.widgets import Markdown

    from labdeck.tui import links

    (tmp_path / "chart.png").write_bytes(b"\x89PNG")
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    opened: list[str] = []
    monkeypatch.setattr(links, "open_in_browser", lambda url: opened.append(url) or True)  # the one policy's
    async with app.run_test(size=SIZE) as pilot:
        await open_view(pilot, sandbox)
        await app.push_screen(WikiEditorScreen(sandbox.project(GATEWAY), "home"))
        await settle(pilot)
        editor = app.screen
        editor.query_one(TextArea).focus()
        await pilot.press("ctrl+t")
        await pilot.pause()
        app.screen.query_one("#prompt-value", Input).value = str(tmp_path / "chart.png")
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is editor
        assert "![chart](uploads/" in editor.query_one(TextArea).text and editor.dirty
        preview = editor.query_one("#wiki-preview", Markdown)
        preview.post_message(Markdown.LinkClicked(preview, "https://evil.example/x"))
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and opened == []  # never opened by itself
        await pilot.press("escape")
        await pilot.pause()
        preview.post_message(Markdown.LinkClicked(preview, "http://sandbox.test/acme/handbook"))
        await pilot.pause()
        assert opened == ["http://sandbox.test/acme/handbook"]  # the instance's own host opens at once


async def test_fork_relationship_marked_and_removed() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, "forks", "acme/handbook")
        forks = view.query_one(ForksTab)
        forks.view.table.focus()
        await pilot.press("l")
        await pilot.pause()
        app.screen.query_one("#prompt-value", Input).value = "opensource/labdeck"
        await pilot.press("enter")
        await settle(pilot)
        handbook = sandbox.store.project_by_path("acme/handbook")
        labdeck = sandbox.store.project_by_path("opensource/labdeck")
        assert handbook.forked_from_id == labdeck.id
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        app.screen.query_one("#confirm").press()
        await settle(pilot)
        assert handbook.forked_from_id is None
