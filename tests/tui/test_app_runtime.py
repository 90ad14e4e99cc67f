"""Pilot tests of the job centre screen (a fake long job to completion, another cancelled), API errors as
notifications, and the crash policy (unexpected errors go to a redacted log, never Textual's crash screen)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import pytest
from snapshot_apps import jump_to, make_app, settle

from labdeck.tui.jobs import Job, JobState
from labdeck.tui.screens.projects.projects import ProjectsScreen
from labdeck.tui.screens.shell.jobs import JobResultsScreen, JobsScreen

SIZE = (110, 30)


def _files(folder: Path) -> list[Path]:
    return sorted(folder.iterdir())



async def test_fake_long_job_runs_to_completion_with_notification_and_results() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        gate = asyncio.Event()

        async def delete_tags(job: Job) -> None:
            job.set_total(4)
            for name in ("v1", "v2", "v3"):
                job.add_result(name, True)
                await asyncio.sleep(0)
            await gate.wait()
            job.add_result("latest", False, "400: latest is never deleted")

        job = app.start_job("Delete 4 tags", delete_tags)
        await jump_to(pilot, "tasks")
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        assert app.status_info(screen).running_jobs == 1
        table = screen.table
        assert [row.id for row in table.rows] == [job.id]
        assert job.state is JobState.RUNNING and job.done == 3
        gate.set()
        await app.jobs.wait(job)
        await pilot.pause()
        assert job.state is JobState.SUCCEEDED and app.status_info(screen).running_jobs == 0
        assert any("Delete 4 tags: partly failed: 1 of 4 items" in n.message for n in app._notifications)
        await pilot.press("enter")
        assert isinstance(app.screen, JobResultsScreen)
        assert [r.item for r in app.screen.job.failed_items] == ["latest"]


async def test_cancel_the_selected_job_with_c() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        async def endless_export(job: Job) -> None:
            await asyncio.Event().wait()

        first = app.start_job("Export group a", endless_export)
        second = app.start_job("Export group b", endless_export)
        await jump_to(pilot, "tasks")
        screen = app.screen
        screen.table.move_cursor(1)
        await pilot.press("c")
        await app.jobs.wait(second)
        await pilot.pause()
        assert second.state is JobState.CANCELLED
        assert first.state is JobState.RUNNING
        assert any("Export group b: cancelled" in n.message for n in app._notifications)


def _not_found_transport(settings) -> httpx.MockTransport:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/v4/user":
            return httpx.Response(200, json={"id": 1, "username": "root", "is_admin": True})
        return httpx.Response(404, json={"message": "404 Project Not Found"})

    return httpx.MockTransport(handler)


async def test_api_error_in_a_worker_becomes_a_notification() -> None:
    app = make_app(transport_factory=_not_found_transport)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "projects")
        await settle(pilot)
        assert isinstance(app.screen, ProjectsScreen)  # still running, still there
        assert [n.message for n in app._notifications] == ["404 Project Not Found"]
        assert app.return_code is None


async def test_unexpected_error_writes_a_redacted_crash_log_and_stops(tmp_path: Path) -> None:
    app = make_app(crash_dir=tmp_path)

    async def exploding_worker() -> None:
        token = "glpat-sandbox-root"  # noqa: F841 (a local that Textual's crash screen would print)
        raise RuntimeError("boom with glpat-sandbox-root inside")

    with pytest.raises(RuntimeError, match="boom"):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.run_worker(exploding_worker())
            await pilot.pause(0.2)
    assert app.return_code == 1
    assert app.crash_log_path is not None and app.crash_log_path.parent == tmp_path
    report = app.crash_log_path.read_text()
    assert "RuntimeError" in report and "exploding_worker" in report
    assert "glpat-sandbox-root" not in report
    assert "token =" not in report.replace('token = "glpat', "")  # the source line, not a locals dump


async def test_unexpected_error_in_a_job_fails_the_job_and_writes_a_report(tmp_path: Path) -> None:
    app = make_app(crash_dir=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)

        async def broken(job: Job) -> None:
            raise KeyError("glpat-sandbox-root")

        job = await app.jobs.wait(app.start_job("Fork", broken))
        await pilot.pause()
        assert job.state is JobState.FAILED and job.error.startswith("Unexpected error: KeyError (report: ")
        (report,) = _files(tmp_path)
        text = report.read_text()
        assert report.name.startswith("crash-") and "KeyError" in text and "glpat-sandbox-root" not in text
        assert app.is_running  # a job's failure never ends the app


async def test_starting_with_the_default_theme_writes_no_config(tmp_path: Path) -> None:
    from labdeck.config.files import Config

    app = make_app(Config(path=tmp_path / "config.toml"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "labdeck-dark"
    assert _files(tmp_path) == []


async def test_quit_with_running_jobs_asks_first() -> None:
    from labdeck.tui.screens.confirm import ConfirmScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        job = app.start_job("Export", lambda job: asyncio.Event().wait())
        await pilot.press("q")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and app.is_running
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and job.state is JobState.RUNNING
        await pilot.press("q")
        await pilot.pause()
        await pilot.click("#confirm")
        await pilot.pause()
    assert app.return_code == 0
    assert job.state is JobState.CANCELLED


async def test_a_later_error_never_replaces_the_first_in_the_crash_report(tmp_path: Path) -> None:
    """Issue 22 item 2: a second error while the app stops (a `DuplicateIds` from a half-torn screen) was
    written over the report of the first one in the same second."""
    app = make_app(crash_dir=tmp_path)

    async def first() -> None:
        raise RuntimeError("the first error")

    async def second() -> None:
        raise LookupError("a later error")

    with pytest.raises(RuntimeError, match="the first error"):
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            app.run_worker(first())
            app.run_worker(second())
            await pilot.pause(0.2)
    (report,) = _files(tmp_path)
    text = report.read_text()
    assert "RuntimeError: the first error" in text
    assert "LookupError" not in text or text.index("the first error") < text.index("LookupError")
