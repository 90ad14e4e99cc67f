"""Cut where it matters (issue 34): at 80x24 every list shows its key columns (read from the header line as
drawn), a value that is cut is readable whole (a task's failure message in its results, an issue's
reference keeping its `#iid`), a list filtered by a label shows that label in every row, and `:log` shown
again is on its newest request, as `tail -f` is, unless an entry's detail is being read."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio
from snapshot_apps import jump_to, make_app, sandbox, settle, until
from textual.geometry import Region
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Input

from labdeck.api.errors import error_for
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.areas import AreaRequest
from labdeck.tui.jobs import Job
from labdeck.tui.widgets.column_widths import MARKER_WIDTH, SEPARATOR_WIDTH
from labdeck.tui.widgets.resource_table import ResourceTable

ASYNC = pytest.mark.asyncio(loop_scope="module")
GATEWAY = "acme/platform/api-gateway"
# What each list must show at 80 columns, whatever the length of its rows' paths and messages.
KEY_COLUMNS = {
    "log": ("Time", "Method", "Status", "Path"),
    "journal": ("Time", "Operation", "Target", "Undo", "Result", "Task"),
    "tasks": ("Task", "State", "Progress", "Result"),
    "issues": ("Reference", "Title", "State", "Labels"),
    "users": ("Username", "Name", "State", "Last activity"),
    "projects": ("Project", "Visibility", "Last activity"),
    "registry": ("Repository", "Tags", "Status"),
    "access-members": ("User", "Level", "Where"),
    "access-variables": ("Key", "Where", "Findings"),
    "access-tokens": ("Token", "Owner", "State", "Expires"),
}
IMPORT_ERROR = ("400: Group import failed: the archive is not a GitLab group export (its top holds no "
                "tree/groups folder) and the group path acme-restored-from-the-old-instance is taken")
CLOSE_ERROR = ("403 Forbidden: You are not allowed to close this issue in acme/platform/api-gateway: "
               "the project's issues are limited to its members with at least the Reporter role")


# A project access token's bot user, named as GitLab names it: `{resource}_{id}_bot_{SecureRandom.hex(16)}`
# (`app/services/resource_access_tokens/create_service.rb`,
# `lib/gitlab/utils/username_and_email_generator.rb`).
BOT = "project_278964_bot_e1c8bbd4cba3e6f5a2b9d7c0f1e2d3c4"


def demo_app() -> Any:
    """The demo data (long project paths and references, issues with several labels, a bot user) on a
    still clock."""
    asgi, factory = sandbox(ManualClock(), scale="demo")
    store = asgi.state.store
    store.user_by_username("dave").username = BOT
    store.touch()
    return make_app(transport_factory=factory)


def cell_text(table: ResourceTable, y: int, key: str) -> str:
    """The text drawn in column `key` on viewport line `y` (0: the header)."""
    widths = table.column_widths
    x = MARKER_WIDTH
    for column in table.columns:
        width = widths[column.key]
        if column.key == key:
            return table.line_text(y)[x:x + width]
        if width:
            x += width + SEPARATOR_WIDTH
    raise KeyError(key)


def header_shows(table: ResourceTable, label: str) -> bool:
    return re.search(rf"(^|\s){re.escape(label)}(\s|$)", table.line_text(0)) is not None


def painted(widget: Widget) -> str:
    """What `widget` paints, its lines joined by spaces (a wrapped sentence reads as one)."""
    lines = widget.render_lines(Region(0, 0, widget.region.width, widget.region.height))
    return " ".join(" ".join(strip.text.split()) for strip in lines)


async def failing_import(job: Job) -> None:
    raise error_for(400, b'{"message": "Group import failed: the archive is not a GitLab group export (its '
                         b'top holds no tree/groups folder) and the group path '
                         b'acme-restored-from-the-old-instance is taken"}', "POST", "/groups/import")


async def partly_failed_close(job: Job) -> None:
    job.set_total(2)
    job.add_result(f"{GATEWAY}#3", True, "closed")
    job.add_result(f"{GATEWAY}#4", False, CLOSE_ERROR)


async def _log(pilot: Pilot[Any]) -> ResourceTable:
    await jump_to(pilot, "issues")  # its listing's path is long: /issues?order_by=...&with_labels_details=...
    await settle(pilot, 2)
    await jump_to(pilot, "log")
    await settle(pilot)
    table: ResourceTable = pilot.app.screen.table
    await until(pilot, lambda: any(len(row[1].path) > 80 for row in table.rows), "a long path in the log")
    return table


async def _journal(pilot: Pilot[Any]) -> ResourceTable:
    app = pilot.app
    variables = app.session.services.variables

    async def add(job: Job) -> None:  # a task of changes with long targets: the journal names them whole
        for key in ("DEPLOY_TOKEN_FOR_THE_STAGING_CLUSTER", "REGISTRY_MIRROR_PASSWORD_OF_THE_BUILD_FARM"):
            await variables.create_variable(("projects", GATEWAY), key, "s3cret-value-1234")
            job.add_result(key, True)

    await app.jobs.wait(app.start_job("Add CI variables to the gateway", add))
    await jump_to(pilot, "journal")
    await settle(pilot)
    return pilot.app.screen.table  # type: ignore[no-any-return]


async def _tasks(pilot: Pilot[Any]) -> ResourceTable:
    app = pilot.app
    for title, run in (("Import group acme-restored-from-the-old-instance", failing_import),
                       ("Close 2 issues of acme/platform/api-gateway", partly_failed_close)):
        await app.jobs.wait(app.start_job(title, run))
    await jump_to(pilot, "tasks")
    await settle(pilot)
    return pilot.app.screen.table  # type: ignore[no-any-return]


async def _area(pilot: Pilot[Any], name: str, request: AreaRequest | None = None) -> ResourceTable:
    await pilot.app.open_area(name, request)
    await settle(pilot, 3)
    table = pilot.app.screen.query_one(ResourceTable)
    await until(pilot, lambda: table.rows, f"the rows of :{name}")
    await settle(pilot)
    return table


async def _issues(pilot: Pilot[Any]) -> ResourceTable:
    return await _area(pilot, "issues")


async def _users(pilot: Pilot[Any]) -> ResourceTable:
    return await _area(pilot, "users")


async def _projects(pilot: Pilot[Any]) -> ResourceTable:
    return await _area(pilot, "projects")


async def _registry(pilot: Pilot[Any]) -> ResourceTable:
    return await _area(pilot, "registry", AreaRequest(scope=GATEWAY))


def _access(tab: str) -> Callable[[Pilot[Any]], Awaitable[ResourceTable]]:
    """`:access` on the fleet group, on its tab `tab` (issue 36)."""
    async def opened(pilot: Pilot[Any]) -> ResourceTable:
        await pilot.app.open_area("access", AreaRequest(scope="fleet"))
        await settle(pilot)
        screen = pilot.app.screen
        screen.show_tab(tab)
        await settle(pilot)
        table = screen.pane.table
        await until(pilot, lambda: table.rows and screen.pane.complete, f"the rows of :access {tab}")
        await settle(pilot)
        return table  # type: ignore[no-any-return]
    return opened


OPEN: dict[str, Callable[[Pilot[Any]], Awaitable[ResourceTable]]] = {
    "log": _log, "journal": _journal, "tasks": _tasks, "issues": _issues, "users": _users,
    "projects": _projects, "registry": _registry, "access-members": _access("members"),
    "access-variables": _access("variables"), "access-tokens": _access("tokens"),
}


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def at_80x24() -> AsyncIterator[Pilot[Any]]:
    """One app on the demo data at 80x24 for the module's tests of headers."""
    async with demo_app().run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        yield pilot


@ASYNC
@pytest.mark.parametrize("name", list(KEY_COLUMNS))
async def test_each_list_shows_its_key_columns_at_80x24(name: str, at_80x24: Pilot[Any]) -> None:
    table = await OPEN[name](at_80x24)
    header = table.line_text(0)
    missing = [label for label in KEY_COLUMNS[name] if not header_shows(table, label)]
    assert not missing, f":{name} at 80x24 shows {header.strip()!r}, not {missing}"


@ASYNC
async def test_an_issue_reference_is_whole_or_keeps_its_project_and_number(at_80x24: Pilot[Any]) -> None:
    table = await _issues(at_80x24)
    first = round(table.scroll_y)
    for y in range(1, min(table.size.height, len(table.visible_rows) - first + 1)):
        issue = table.visible_rows[first + y - 1]
        shown = cell_text(table, y, "reference").strip()
        project, _, number = issue.reference.rpartition("#")
        tail = f"{project.rpartition('/')[2]}#{number}"
        assert shown == issue.reference or shown.endswith(f"…{tail}") or shown.endswith(tail), shown


@pytest.mark.parametrize("size", [(80, 24), (160, 50)])
async def test_a_list_filtered_by_a_label_shows_it_in_every_row(size: tuple[int, int]) -> None:
    app = demo_app()
    async with app.run_test(size=size) as pilot:
        table = await _issues(pilot)
        query = app.screen.query_one("#issues-query", Input)
        query.focus()
        query.value = "label:bug"
        await pilot.press("enter")
        await settle(pilot, 3)
        await until(pilot, lambda: table.rows and all("bug" in i.label_names for i in table.rows),
                    "the issues labelled bug")
        await settle(pilot)
        assert table.column_widths["labels"] > 0
        lines = min(table.size.height - 1, len(table.visible_rows))
        assert lines >= 5
        for y in range(1, lines + 1):
            issue = table.visible_rows[round(table.scroll_y) + y - 1]
            cell = cell_text(table, y, "labels")
            assert re.search(r"(^|\s)bug(\s|$)", cell), (cell, issue.label_names)


async def test_a_cut_failure_message_is_readable_whole_in_the_task_results() -> None:
    app = make_app(transport_factory=sandbox(ManualClock())[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = await _tasks(pilot)
        failed = next(y for y in range(1, 3) if "Import group" in table.line_text(y))
        assert "…" in cell_text(table, failed, "outcome")  # cut in the list
        table.move_cursor(failed - 1)
        await pilot.press("enter")
        await settle(pilot)
        assert IMPORT_ERROR in painted(app.screen.query_one("#results-outcome"))
        await pilot.press("escape")
        await settle(pilot)
        table.move_cursor(2 - failed)  # the other task: one of its items failed
        await pilot.press("enter")
        await settle(pilot)
        results = app.screen
        assert results.query_one(ResourceTable).cursor_row[1].message == CLOSE_ERROR  # on the failed item
        assert CLOSE_ERROR in painted(results.query_one(".resource-view--detail"))


def _squeezed(text: str) -> str:
    return "".join(text.split())


async def test_a_cut_path_and_a_cut_target_read_whole_in_their_detail() -> None:
    """`:log`'s path and `:journal`'s target, cut at 80 columns, are whole (wrapped) in the detail."""
    app = make_app(transport_factory=sandbox(ManualClock())[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        log = await _log(pilot)
        index = next(i for i, row in enumerate(log.visible_rows) if len(row[1].path) > 80)
        log.move_cursor(index)
        path = log.cursor_row[1].path
        line = index - round(log.scroll_y) + 1
        assert cell_text(log, line, "path").rstrip().endswith("…")
        await pilot.press("enter")
        await settle(pilot)
        assert _squeezed(path) in _squeezed(painted(app.screen.query_one(".resource-view--detail")))
        journal = await _journal(pilot)
        entry = journal.cursor_row
        assert cell_text(journal, 1, "target").rstrip().endswith("…")
        await pilot.press("enter")
        await settle(pilot)
        assert entry.target in painted(app.screen.query_one("#detail-screen-body"))


async def _log_at_oldest(pilot: Pilot[Any]) -> Any:
    await jump_to(pilot, "log")
    await settle(pilot)
    screen = pilot.app.screen
    await pilot.press("home")  # read back to the oldest request
    assert screen.table.cursor_index == 0
    return screen


def _on_newest(pilot: Pilot[Any], table: ResourceTable) -> bool:
    """The cursor on the newest request, and that request's line on screen."""
    entries = pilot.app.session.client.request_log.entries
    row = table.cursor_row
    if row is None or row[1].seq != entries[-1].seq:
        return False
    line = table.cursor_index - round(table.scroll_y) + 1
    return 1 <= line < table.size.height and row[1].path[:20] in table.line_text(line)


async def test_log_shown_again_is_on_its_newest_request() -> None:
    app = make_app(transport_factory=sandbox(ManualClock())[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _log_at_oldest(pilot)
        await jump_to(pilot, "users")
        await settle(pilot, 2)
        seen = len(app.session.client.request_log.entries)
        await app.session.client.get_json("/version")  # a request while the log is not shown
        await jump_to(pilot, "log")
        assert app.screen is screen and len(app.session.client.request_log.entries) > seen
        await until(pilot, lambda: _on_newest(pilot, screen.table), "the cursor on the newest request")
        await pilot.press("home")
        await app.session.client.get_json("/version")  # a request while the log is shown
        await jump_to(pilot, "log")  # `:` to the log already open
        await until(pilot, lambda: _on_newest(pilot, screen.table), "the cursor on the newest request")


async def test_log_shown_again_keeps_the_entry_whose_detail_is_read() -> None:
    app = make_app(transport_factory=sandbox(ManualClock())[1])
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = await _log_at_oldest(pilot)
        await pilot.press("down", "enter")  # the second request's detail, under the table
        read = screen.table.cursor_row
        assert screen.query_one("#log-view").detail_shown
        await jump_to(pilot, "users")
        await settle(pilot, 2)
        await jump_to(pilot, "log")
        log = app.session.client.request_log

        def all_in() -> bool:
            return len(screen.table.rows) == len(log.entries)

        await until(pilot, all_in, "the new requests in the log")
        assert screen.table.cursor_row is read  # none of them moved the entry being read
        await pilot.press("end")  # the newest request's detail: new ones are added below it, not followed
        read = screen.table.cursor_row
        await app.session.client.get_json("/version")
        await until(pilot, lambda: all_in() and screen.table.rows[-1][1].path == "/version",
                    "the new request in the log")
        assert screen.table.cursor_row is read and screen.table.cursor_index == len(log.entries) - 2


def test_a_narrow_progress_bar_keeps_its_count() -> None:
    from labdeck.tui.screens.shell.jobs import progress_in, progress_text

    job = Job(id=1, title="Delete 30 tags", total=30, done=12)
    assert progress_in(job, 40) == progress_text(job) == "████████░░░░░░░░░░░░ 12/30"
    assert progress_in(job, 12) == "██░░░░ 12/30"  # the bar narrowed to the room, the count whole
    assert progress_in(Job(id=2, title="Export"), 5) == "working…"  # no bar to narrow: cut as any cell
