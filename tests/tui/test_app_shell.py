"""Pilot tests of the shell against the tiny sandbox in-process: start, `:` jump, palette, help, back,
unavailable areas, the request log, read-only mode and confirmations."""

from __future__ import annotations

from snapshot_apps import jump_to, make_app, palette_choose, settle, until
from textual.widgets import Button

from labdeck.tui import areas
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.shell.help import HelpScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.screens.shell.jobs import JobsScreen
from labdeck.tui.screens.shell.jump import JumpScreen
from labdeck.tui.screens.shell.request_log import RequestLogScreen
from labdeck.tui.screens.shell.unavailable import UnavailableScreen
from labdeck.tui.widgets.status_bar import render_status

SIZE = (110, 30)



async def test_starts_signed_in_on_home_with_status() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        info = app.status_info(app.screen)
        assert (info.instance, info.username, info.is_admin) == ("demo", "root", True)
        text = render_status(info).plain
        assert "demo" in text and "root" in text and "admin" in text


async def test_jump_opens_projects_from_the_sandbox_and_escape_goes_back() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        assert isinstance(app.screen, JumpScreen)
        await pilot.press("p", "r", "o", "tab", "enter")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        assert len(screen.table.rows) > 0
        assert all(project.path_with_namespace for project in screen.table.rows)
        assert screen.data_loaded_at is not None
        project_requests = sum(e.path.startswith("/projects") for e in app.request_log.entries)
        await pilot.press("r")  # refresh asks again
        await settle(pilot)
        assert sum(e.path.startswith("/projects") for e in app.request_log.entries) == project_requests + 1
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_jump_to_an_area_not_built_says_so_and_unknown_names_stay(monkeypatch) -> None:
    monkeypatch.setitem(areas.AREAS, "wikis", areas.Area("wikis", "Wikis", "Project wikis"))  # no factory
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "wikis")
        assert isinstance(app.screen, UnavailableScreen)
        assert app.screen.area.name == "wikis"
        await pilot.press("escape")
        await jump_to(pilot, "zzz")
        assert isinstance(app.screen, JumpScreen)
        await pilot.press("escape")
        assert isinstance(app.screen, HomeScreen)


async def test_request_log_lists_requests_live() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "log")
        screen = app.screen
        assert isinstance(screen, RequestLogScreen)
        before = len(screen.table.rows)
        assert before >= 1  # GET /user at start
        await app.session.client.get_json("/version")
        await until(pilot, lambda: len(screen.table.rows) > before, "the new request in the log")
        rows = screen.table.rows
        assert len(rows) == before + 1
        assert rows[-1][1].path.endswith("/version") and rows[-1][1].status == 200


async def test_palette_jumps_to_tasks() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette_choose(pilot, "go to tasks", "Go to Tasks")
        assert isinstance(app.screen, JobsScreen)


async def test_palette_offers_the_current_screens_actions() -> None:
    from labdeck.tui.commands import ScreenActionCommands

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        provider = ScreenActionCommands(app.screen)
        entries = {title: run for title, _, run in provider.entries()}
        assert "Archive/unarchive" in entries and "Refresh" in entries
        entries["Archive/unarchive"]()
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)


async def test_help_lists_the_screens_bindings_with_ids() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "tasks")
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        ids = {row.binding_id for row in help_screen.rows}
        assert {"jobs.cancel", "jump", "quit", "refresh", "table.mark"} <= ids
        cancel = next(row for row in help_screen.rows if row.binding_id == "jobs.cancel")
        assert (cancel.key, cancel.description) == ("c", "Cancel task")
        await pilot.press("escape")
        assert isinstance(app.screen, JobsScreen)


async def test_read_only_hides_the_mutating_action() -> None:
    app = make_app(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        screen = app.screen
        assert screen.check_action("toggle_archive", ()) is False
        assert "a" not in {key for key, b in screen.active_bindings.items() if b.enabled}
        await pilot.press("a")
        assert app.screen is screen  # no confirmation opened
        assert "read-only" in render_status(app.status_info(screen)).plain


async def test_mutating_action_asks_first_with_cancel_focused() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        focused = app.screen.focused
        assert isinstance(focused, Button) and focused.id == "cancel"
        await pilot.press("enter")  # Cancel
        await pilot.pause()
        assert isinstance(app.screen, ProjectsScreen)


HOSTILE = "[@click=app.quit]x[/bold] \x1b]52;c;ZXZpbA==\x07"


def _hostile_transport(settings):  # type: ignore[no-untyped-def]
    import httpx

    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v4/user":
            return httpx.Response(200, json={"id": 1, "username": HOSTILE, "is_admin": False})
        return httpx.Response(200, json=[{"id": 7, "name": HOSTILE, "path_with_namespace": HOSTILE,
                                          "description": HOSTILE, "visibility": "[red]public"}])

    return httpx.MockTransport(handler)


async def test_hostile_server_text_is_shown_literally_everywhere() -> None:
    app = make_app(transport_factory=_hostile_transport)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        status = render_status(app.status_info(app.screen)).plain
        assert "[@click=app.quit]x[/bold]" in status and "\x1b" not in status
        await jump_to(pilot, "projects")
        await pilot.press("d")  # the detail pane renders the description too
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        (project,) = screen.table.rows
        assert project.path_with_namespace.startswith("[@click=app.quit]x[/bold]")
        await pilot.click("#projects-view", offset=(4, 1))
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_palette_offers_saved_views_from_the_config(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from labdeck.config.files import Config, SavedView
    from labdeck.tui.commands import SavedViewCommands

    requests: list[areas.AreaRequest] = []

    def issues_screen(request: areas.AreaRequest) -> UnavailableScreen:
        requests.append(request)
        return UnavailableScreen(areas.AREAS["issues"])

    monkeypatch.setitem(areas.AREAS, "issues", areas.Area("issues", "Issues", "test", issues_screen))
    views = {"my-bugs": SavedView("my-bugs", "label:bug state:opened")}
    config = Config(path=tmp_path / "c.toml", views=views)
    app = make_app(config)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        entries = list(SavedViewCommands(app.screen).entries())
        assert [(title, help_text) for title, help_text, _ in entries] == [
            ("Saved view: my-bugs", "instance: label:bug state:opened")]
        entries[0][2]()
        await pilot.pause()
        assert isinstance(app.screen, UnavailableScreen) and app.screen.area.name == "issues"
        assert requests == [areas.AreaRequest(query="label:bug state:opened", scope="instance")]


async def test_request_log_enter_shows_the_whole_request_and_y_copies_it() -> None:
    from labdeck.tui.widgets.resource_view import ResourceView

    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        long_path = "/projects/" + "a-very-long-group-name%2F" * 4 + "project/issues?state=opened"
        try:
            await app.session.client.get_json(long_path)
        except Exception:  # a 404 is logged all the same
            pass
        await jump_to(pilot, "log")
        screen = app.screen
        assert isinstance(screen, RequestLogScreen)
        table = screen.table
        table.move_cursor(len(table.visible_rows) - 1)
        entry = table.cursor_row[1]
        assert "a-very-long-group-name" in entry.path
        await pilot.press("enter")
        view = screen.query_one("#log-view", ResourceView)
        assert view.detail_shown
        assert entry.path in str(view.detail_pane.render())
        await pilot.press("y")
        assert app.clipboard.startswith(f"GET {entry.path} → ")
