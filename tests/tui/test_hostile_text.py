"""Hostile server text in the TUI: usernames, names, tag names, repository names and server error messages
that look like Textual markup (`[@click=app.quit]`, `[/bold]`, `[red]`) or carry terminal escapes (OSC 52)
must render literally (controls made visible), never run an action, never crash the app."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import httpx
from snapshot_apps import make_app, settle, until
from textual.widgets import Input, OptionList, Static
from tiny_sandbox import Sandbox

from labdeck.api.models.registry import RegistryRepository
from labdeck.sandbox.seed.registry import Tag, add_repository
from labdeck.tui.app import LabdeckApp
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.registry.registry import RegistryScreen, RegistryTagsScreen
from labdeck.tui.screens.shell.request_log import RequestLogScreen
from labdeck.tui.screens.users.users import OperationMenu, UsersScreen

SIZE = (160, 45)
CLICK = "[@click=app.quit]x"
CLOSE = "[/bold]"
OSC52 = "\x1b]52;c;ZXZpbA==\x07"
OSC52_SHOWN = "␛]52;c;ZXZpbA==␇"  # the same text with its controls made visible
GATEWAY = "acme/platform/api-gateway"


def screen_text(app: LabdeckApp) -> str:
    """What the current screen paints, as plain text lines."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


def click_actions(app: LabdeckApp) -> list[str]:
    """Every `@click` action carried by a painted segment (markup from server text would add one)."""
    found = []
    for strip in app.screen._compositor.render_strips():
        for segment in strip:
            meta = segment.style.meta if segment.style else {}
            if meta.get("@click"):
                found.append(str(meta["@click"]))
    return found


def toast_text(app: LabdeckApp) -> str:
    """The text of the notifications on screen, as painted."""
    from textual.widgets._toast import Toast

    lines = []
    for toast in app.screen.query(Toast):
        lines.extend(strip.text for strip in toast.render_lines(toast.region.reset_offset))
    return "\n".join(lines)


def hostile_sandbox() -> Any:
    sandbox = Sandbox(async_delay=0)
    asgi, store = sandbox.asgi, sandbox.store
    bob = store.user_by_username("bob")
    bob.username = CLICK
    bob.name = f"{CLOSE} Bob {OSC52}"
    bob.email = "[red]bob@example.com"
    store.touch()
    return asgi


async def test_hostile_user_renders_literally_in_list_detail_menu_and_confirm() -> None:
    asgi = hostile_sandbox()
    app = make_app(transport_factory=lambda settings: httpx.ASGITransport(asgi))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = UsersScreen()
        await app.push_screen(screen)
        await settle(pilot)
        usernames = [u.username for u in screen.table.rows]
        assert CLICK in usernames
        screen.table.move_cursor([u.username for u in screen.table.visible_rows].index(CLICK))
        await pilot.pause()
        painted = screen_text(app)
        assert CLICK in painted and f"{CLOSE} Bob {OSC52_SHOWN}" in painted
        assert "[red]bob@example.com" in painted and "\x1b" not in painted
        assert click_actions(app) == []
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, OperationMenu)
        assert f"Moderate {CLICK}" in screen_text(app) and click_actions(app) == []
        options = app.screen.query_one(OptionList)
        options.highlighted = options.get_option_index("block")
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert f"Block user {CLICK}?" in screen_text(app) and click_actions(app) == []
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and app.return_code is None
        assert asgi.state.store.user_by_username(CLICK).state == "active"


class HostileErrors(httpx.AsyncBaseTransport):
    """The sandbox, except that every POST answers 403 with a message full of markup and escapes."""

    MESSAGE = f"[red]denied[/red] {CLICK} {CLOSE} {OSC52}"

    def __init__(self, asgi: Any) -> None:
        self.inner = httpx.ASGITransport(asgi)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.method == "POST":
            return httpx.Response(403, json={"message": self.MESSAGE})
        return await self.inner.handle_async_request(request)


async def test_hostile_error_message_in_notification_and_request_log() -> None:
    asgi = hostile_sandbox()
    app = make_app(transport_factory=lambda settings: HostileErrors(asgi))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = UsersScreen()
        await app.push_screen(screen)
        await settle(pilot)
        user = next(u for u in screen.table.rows if u.username == "alice")
        screen.run_single(user, next(op for op, on, _ in screen.availability(user) if on))
        await settle(pilot)
        shown = f"[red]denied[/red] {CLICK} {CLOSE} {OSC52_SHOWN}"
        await until(pilot, lambda: any(shown in n.message for n in app._notifications),
                    "the refusal's notice")
        notes = [n for n in app._notifications if shown in n.message]
        assert notes and all(not n.markup for n in notes)
        toasts = toast_text(app)
        assert "[red]denied[/red]" in toasts and CLICK in toasts and "\x1b" not in toasts
        assert click_actions(app) == []
        await app.push_screen(RequestLogScreen())
        await settle(pilot)
        log = app.screen
        assert any(shown in (entry.error or "") for _, entry in log.table.rows)
        log.table.move_cursor(len(log.table.visible_rows) - 1)
        await pilot.pause()
        assert "[red]denied[/red]" in screen_text(app) and click_actions(app) == []
        assert app.is_running and app.return_code is None


async def test_hostile_worker_error_becomes_a_literal_notification() -> None:
    from labdeck.api.errors import error_for

    app = make_app()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)

        async def fail() -> None:
            raise error_for(400, f'{{"message":"[bold]{CLICK}"}}'.encode(), "GET", "/x")

        app.run_worker(fail(), exit_on_error=True)
        await until(pilot, lambda: any(f"[bold]{CLICK}" in n.message for n in app._notifications),
                    "the error's notice")
        notes = [n for n in app._notifications if f"[bold]{CLICK}" in n.message]
        assert notes and not notes[0].markup
        assert f"[bold]{CLICK}" in toast_text(app) and click_actions(app) == []
        assert app.is_running and app.return_code is None


def hostile_registry() -> tuple[Any, Any]:
    sandbox = Sandbox(async_delay=0)
    asgi, store = sandbox.asgi, sandbox.store
    now = store.now()
    project = store.project_by_path(GATEWAY)
    tags = [Tag(name, now - timedelta(days=days), f"sha256:{d * 64}", d * 64, 1000)
            for name, days, d in ((CLOSE, 1, "a"), (CLICK, 2, "b"), ("[b]v1[/b]", 3, "c"), ("ok", 4, "d"))]
    repo = add_repository(store, project, f"{CLOSE}{CLICK}", tags)
    return asgi, repo


async def test_hostile_registry_names_render_literally() -> None:
    asgi, repo = hostile_registry()
    app = make_app(transport_factory=lambda settings: httpx.ASGITransport(asgi))
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot)
        screen = RegistryScreen(AreaRequest(scope=GATEWAY))
        await app.push_screen(screen)
        await settle(pilot)
        screen.table.move_cursor([r.id for r in screen.table.visible_rows].index(repo.id))
        await pilot.pause()
        assert f"{CLOSE}{CLICK}" in screen_text(app) and click_actions(app) == []
        await pilot.press("x")
        await pilot.pause()
        assert f"{CLOSE}{CLICK}" in screen_text(app) and click_actions(app) == []
        await pilot.press("escape")
        await pilot.pause()
        model = next(r for r in screen.table.rows if isinstance(r, RegistryRepository) and r.id == repo.id)
        tags = RegistryTagsScreen(model)
        await app.push_screen(tags)
        await settle(pilot)
        names = {t.name for t in tags.table.rows}
        assert {CLOSE, CLICK, "[b]v1[/b]"} <= names
        painted = screen_text(app)
        assert CLOSE in painted and CLICK in painted and "[b]v1[/b]" in painted
        assert "\x1b" not in painted and click_actions(app) == []
        await pilot.press("space", "down", "space", "down", "space")
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        assert CLICK in screen_text(app) and click_actions(app) == []
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("c")
        await pilot.pause()
        cleanup = app.screen
        cleanup.query_one("#cleanup-delete", Input).value = ".*"
        await until(pilot, lambda: CLICK in screen_text(app), "the plan table with the hostile names")
        await settle(pilot)
        assert CLICK in screen_text(app) and click_actions(app) == []
        assert "\x1b" not in str(cleanup.query_one("#cleanup-summary", Static).render())
        assert app.is_running and app.return_code is None
        assert set(asgi.state.store.areas["registry"].repositories[repo.id].tags) == {
            CLOSE, CLICK, "[b]v1[/b]", "ok"}
