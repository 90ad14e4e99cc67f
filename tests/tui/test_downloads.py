"""Exports: a missing folder is created after asking, a second export never overwrites the first, and the
last folder used is offered next time."""

from __future__ import annotations

from pathlib import Path

import pytest
from snapshot_apps import make_app, sandbox, settle
from textual.widgets import Input

from labdeck.api.private_files import split_name, write_new
from labdeck.tui import downloads
from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.groups.groups import GroupsScreen

SIZE = (150, 42)


@pytest.fixture(autouse=True)
def fresh_store(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(downloads, "LAST_FOLDER_STORE", downloads._Store())



def test_names_never_overwrite(tmp_path: Path) -> None:
    assert split_name("acme_export.tar.gz") == ("acme_export", ".tar.gz")
    assert split_name(".hidden") == (".hidden", "")
    assert write_new(tmp_path / "acme_export.tar.gz", b"1").name == "acme_export.tar.gz"
    assert write_new(tmp_path / "acme_export.tar.gz", b"2").name == "acme_export (1).tar.gz"
    assert write_new(tmp_path / "acme_export.tar.gz", b"3").name == "acme_export (2).tar.gz"
    assert (tmp_path / "acme_export.tar.gz").read_bytes() == b"1"


async def test_export_into_a_missing_folder_asks_creates_and_never_overwrites(tmp_path: Path) -> None:
    _asgi, factory = sandbox(async_delay=0.05)
    app = make_app(transport_factory=factory)
    missing = tmp_path / "Downloads"
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = GroupsScreen(AreaRequest(scope="acme"), download_dir=missing)
        await app.push_screen(screen)
        await settle(pilot)
        for _ in range(2):
            await pilot.press("E")
            await pilot.pause()
            assert isinstance(app.screen, FormScreen)
            assert app.screen.query_one("#field-folder", Input).value == str(missing)
            await pilot.press("ctrl+s")
            await pilot.pause()
            if not missing.exists():
                assert isinstance(app.screen, ConfirmScreen)  # asks before creating it
                await pilot.click("#confirm")
            await settle(pilot)
            for job in app.jobs.jobs:
                await app.jobs.wait(job)
            await settle(pilot)
        assert sorted(p.name for p in missing.iterdir()) == ["acme_export (1).tar.gz", "acme_export.tar.gz"]
        assert downloads.default_download_dir() == missing  # offered next time
        again = GroupsScreen(AreaRequest(scope="acme"))
        assert again.download_dir == missing
