"""`:log` against a sandbox whose every body is cut short (`badjson=1.0`): each entry shows the status the
server sent (200) and, in the Error column, that the JSON was malformed; no row claims a clean success."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from snapshot_apps import make_app
from textual.worker import WorkerFailed

from faulty_sandbox import SocketLike, fast_retry_settings
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.tui.screens.request_log import RequestLogScreen


def crash_reports(folder: Path) -> list[Path]:
    return list(folder.iterdir())


async def settle(pilot: Any) -> None:
    try:
        await pilot.app.workers.wait_for_complete()
    except WorkerFailed:
        pass
    await pilot.pause()


async def test_log_screen_shows_malformed_json_error(tmp_path: Path) -> None:
    asgi = create_app(SandboxOptions(scale="tiny", faults="badjson=1.0", fault_seed=0), clock=ManualClock())
    app = make_app(settings=fast_retry_settings("badjson"), transport_factory=lambda s: SocketLike(asgi),
                   crash_dir=tmp_path)
    async with app.run_test(size=(220, 30)) as pilot:
        await settle(pilot)
        await app.push_screen(RequestLogScreen())
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, RequestLogScreen)
        rows = screen.table.rows
        assert rows
        ok = [entry for _, entry in rows if entry.status == 200]
        assert ok and all(entry.error and entry.error.startswith("malformed JSON") for entry in ok)
        lines = [screen.table.line_text(y) for y in range(1, len(rows) + 1)]
        shown = [line for line in lines if " 200 " in line]
        assert shown and all("malformed JSON" in line for line in shown), lines
    assert not crash_reports(tmp_path)


def test_status_of_an_unreadable_success_is_not_green() -> None:
    from datetime import UTC, datetime

    from labdeck.api.request_log import RequestLogEntry
    from labdeck.tui.screens.request_log import log_cells

    at = datetime(2024, 1, 1, tzinfo=UTC)
    bad = RequestLogEntry(at, "GET", "/user", 200, 5.0, 0, "malformed JSON: Expecting value (char 7)")
    good = RequestLogEntry(at, "GET", "/user", 200, 5.0, 0)
    bad_cells, good_cells = log_cells((0, bad)), log_cells((1, good))
    assert bad_cells[2].plain == "200" and str(bad_cells[2].style) == "red"
    assert str(good_cells[2].style) == "green"
    assert bad_cells[-1].plain.startswith("malformed JSON") and good_cells[-1].plain == ""
