"""`o` opens the selected row in the browser (outside links ask first), `y` copies its URL or reference;
admin-only areas are hidden from regular users."""

from __future__ import annotations

from snapshot_apps import jump_to, make_app, sandbox_settings, settle
from textual.widgets import Button

from labdeck.tui import links
from labdeck.tui.links import open_link
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.shell.home import HomeScreen

SIZE = (110, 30)



async def test_o_opens_the_project_page_and_y_copies_its_url(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    opened: list[str] = []
    monkeypatch.setattr(links, "open_in_browser", lambda url: opened.append(url) or True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        project = screen.table.cursor_row
        await pilot.press("o")
        await pilot.pause()
        assert opened == [project.web_url]  # same host as the instance: no question asked
        await pilot.press("y")
        await pilot.pause()
        assert app.clipboard == project.web_url


async def test_an_outside_link_asks_first_and_cancel_opens_nothing(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    app = make_app()
    opened: list[str] = []
    monkeypatch.setattr(links, "open_in_browser", lambda url: opened.append(url) or True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        open_link(app, "https://elsewhere.example.net/[@click=app.quit]")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.focused is app.screen.query_one("#cancel", Button)
        await pilot.press("enter")  # Cancel is focused
        await pilot.pause()
        assert opened == []
        open_link(app, "https://elsewhere.example.net/x")
        await pilot.pause()
        await pilot.click("#confirm")
        await pilot.pause()
        assert opened == ["https://elsewhere.example.net/x"]
        open_link(app, "javascript:alert(1)")
        await pilot.pause()
        assert not isinstance(app.screen, ConfirmScreen) and opened == ["https://elsewhere.example.net/x"]


async def test_regular_users_do_not_see_admin_only_areas() -> None:
    app = make_app(settings=sandbox_settings(token="glpat-sandbox-alice"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen)
        ids = [app.screen.query_one("#areas").get_option_at_index(i).id
               for i in range(app.screen.query_one("#areas").option_count)]
        assert "users" not in ids and "projects" in ids
        app.open_area("users")
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen)  # refused with a notification, no screen pushed


async def test_administrators_see_admin_only_areas_once_signed_in() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        areas = app.screen.query_one("#areas")
        assert "users" in [areas.get_option_at_index(i).id for i in range(areas.option_count)]


async def test_o_without_a_browser_shows_the_url_and_offers_to_copy_it(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(links.webbrowser, "open", lambda url, new=0: False)  # what a headless host answers
    monkeypatch.setenv("DISPLAY", ":0")
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        screen = app.screen
        assert isinstance(screen, ProjectsScreen)
        project = screen.table.cursor_row
        await pilot.press("o")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen) and "No browser" in str(dialog.confirm_title)
        assert project.web_url in str(dialog.message)
        await pilot.click("#confirm")
        await pilot.pause()
        assert app.clipboard == project.web_url


def test_no_display_means_no_browser(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(links.sys, "platform", "linux")
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setattr(links.webbrowser, "open", lambda url, new=0: (_ for _ in ()).throw(AssertionError))
    assert links.open_in_browser("https://gitlab.example.com/") is False
