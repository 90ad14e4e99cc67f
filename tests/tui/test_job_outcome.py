"""What a task says (issue 32 item 12): a task's outcome is defined once, from its run and its per-item
results (`Job.outcome`): succeeded (no item failed), partly failed, failed (it raised, or every item
failed), cancelled; `:tasks` shows it as the task's state, with its count and colour, and so do the
notification when it ends and the overview. A task whose only item failed used to say "succeeded"."""

from __future__ import annotations

import pytest
from rich.text import Text
from snapshot_apps import jump_to, make_app, messages, settle, until

from labdeck.api.errors import Forbidden
from labdeck.tui.bulk import BulkAction, start_bulk
from labdeck.tui.jobs import Job, JobOutcome, JobState
from labdeck.tui.screens.shell.jobs import JobsScreen


def finished(state: JobState, *oks: bool) -> Job:
    job = Job(id=1, title="t", state=state)
    for at, ok in enumerate(oks):
        job.add_result(f"item {at}", ok, "" if ok else "refused")
    return job


@pytest.mark.parametrize(("state", "oks", "outcome"), [
    (JobState.QUEUED, (), JobOutcome.QUEUED),
    (JobState.RUNNING, (False,), JobOutcome.RUNNING),
    (JobState.SUCCEEDED, (), JobOutcome.SUCCEEDED),  # a task without items (an export, a fork)
    (JobState.SUCCEEDED, (True, True), JobOutcome.SUCCEEDED),
    (JobState.SUCCEEDED, (False,), JobOutcome.FAILED),  # its only item failed
    (JobState.SUCCEEDED, (False, False), JobOutcome.FAILED),
    (JobState.SUCCEEDED, (True, False, True), JobOutcome.PARTLY_FAILED),
    (JobState.FAILED, (True,), JobOutcome.FAILED),  # it raised, whatever its items did
    (JobState.CANCELLED, (True, False), JobOutcome.CANCELLED),
])
def test_a_tasks_outcome_comes_from_its_run_and_its_items(state: JobState, oks: tuple[bool, ...],
                                                          outcome: JobOutcome) -> None:
    assert finished(state, *oks).outcome is outcome


def test_the_outcome_says_its_count() -> None:
    assert finished(JobState.SUCCEEDED, False).outcome_text() == "failed: 1 of 1 item"
    assert finished(JobState.SUCCEEDED, True, False, True).outcome_text() == "partly failed: 1 of 3 items"
    assert finished(JobState.SUCCEEDED, True).outcome_text() == "succeeded"


async def test_a_bulk_action_whose_only_item_fails_shows_failed_in_tasks() -> None:
    app = make_app()
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)

        async def refused(row: str) -> tuple[bool, str]:
            raise Forbidden(403, "403 Forbidden", "PUT", "/projects/1/issues/1")

        job = start_bulk(app.screen, BulkAction("Close 1 issue", ["#1"], str, refused, noun="issue",
                                                verb="closed"))
        await app.jobs.wait(job)
        await settle(pilot)
        assert "Close 1 issue: failed: 1 of 1 item" in messages(app)  # the notification when it ended
        await jump_to(pilot, "tasks")
        screen = app.screen
        assert isinstance(screen, JobsScreen)
        await until(pilot, lambda: screen.table.rows, "the task listed")
        cells = screen.table.model.visible_cells(0)
        state, result = cells[2], cells[5]
        assert isinstance(state, Text) and state.plain == "failed" and "red" in str(state.style)
        assert isinstance(result, Text) and "1 failed" in result.plain
