"""`persist_cache = true`: a relaunch paints lists from the on-disk cache without asking the instance."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from snapshot_apps import jump_to, make_app

from labdeck.config.files import Config
from labdeck.tui.screens.users.users import UsersScreen

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
