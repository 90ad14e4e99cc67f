"""`persist_cache = true`: a relaunch paints lists from the on-disk cache without asking the instance."""

from __future__ import annotations

import asyncio
import stat
from pathlib import Path
from typing import Any

import httpx
import pytest
from snapshot_apps import jump_to, make_app, sandbox, settle

from labdeck.config.files import Config
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.users.users import UsersScreen
from labdeck.tui.widgets.resource_view import footer_text

SIZE = (110, 30)


async def _open_users(config: Config) -> tuple[int, int]:
    """Open :users in a fresh app; returns (rows shown, requests to /users made by this run)."""
    app = make_app(config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        await jump_to(pilot, "users")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, UsersScreen)
        rows = len(screen.table.rows)
        requests = [e for e in app.request_log.entries if e.path.startswith("/users")]
    return rows, len(requests)


@pytest.mark.parametrize("persist", [True, False])
async def test_relaunch_reads_lists_from_disk_only_when_persisted(tmp_path: Path, monkeypatch, persist: bool
                                                                  ) -> None:
    monkeypatch.setenv("LABDECK_CACHE_DIR", str(tmp_path / "cache"))
    config = Config(path=tmp_path / "config.toml", persist_cache=persist)
    first_rows, first_requests = await _open_users(config)
    assert first_rows > 0 and first_requests >= 1
    second_rows, second_requests = await _open_users(config)
    assert second_rows == first_rows
    if persist:
        assert second_requests == 0
        files = list((tmp_path / "cache").glob("lists-*.sqlite"))
        assert len(files) == 1
        assert stat.S_IMODE(files[0].stat().st_mode) == 0o600
        assert b"glpat-sandbox-root" not in files[0].read_bytes()
    else:
        assert second_requests >= 1
        assert not (tmp_path / "cache").exists()


class _HeldListing(httpx.AsyncBaseTransport):
    """The sandbox, except that `/projects` listings wait until `release` is set (a slow instance)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner, self.release = inner, asyncio.Event()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/projects"):
            await self.release.wait()
        return await self.inner.handle_async_request(request)


async def test_a_relaunch_paints_the_first_page_of_a_huge_list_at_once(tmp_path: Path, monkeypatch) -> None:
    """The persisted cache holds the first page of `:projects` (a million, read on demand, never whole); a
    relaunch shows it before the instance has answered, says it is reading again, then shows the
    listing's own first page."""
    monkeypatch.setenv("LABDECK_CACHE_DIR", str(tmp_path / "cache"))
    config = Config(path=tmp_path / "config.toml", persist_cache=True)
    _asgi, factory = sandbox(None, scale="huge")
    first = make_app(config, transport_factory=factory)
    async with first.run_test(size=SIZE) as pilot:
        screen = ProjectsScreen()
        await first.push_screen(screen)
        await settle(pilot, rounds=3)
        seen = [p.id for p in screen.table.rows[:100]]
        assert len(seen) == 100 and screen.feed.partial
        await first.session.client.cache.flush()
    held: list[_HeldListing] = []

    def slow(settings: Any) -> httpx.AsyncBaseTransport:
        held.append(_HeldListing(factory(settings)))
        return held[-1]

    second = make_app(config, transport_factory=slow)
    async with second.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = ProjectsScreen()
        await second.push_screen(screen)
        await pilot.pause()
        for _ in range(200):  # painted from the disk while the listing is held
            if screen.table.model.row_count:
                break
            await pilot.pause(0.01)
        assert [p.id for p in screen.table.rows] == seen
        assert "last seen, reading the list again" in footer_text(screen.table).plain
        assert not [e for e in second.request_log.entries if e.path.startswith("/projects")]
        held[-1].release.set()
        await settle(pilot, rounds=3)
        assert [p.id for p in screen.table.rows[:100]] == seen and screen.feed.partial
        assert "more on the server" in footer_text(screen.table).plain
