"""The job centre model (headless): states, progress, results, cancellation, queueing, and poll_until."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.api.errors import NotFound
from labdeck.tui.jobs import Job, JobCentre, JobState, PollTimeout, outcome_text, poll_until


async def test_job_runs_to_success_with_progress_and_results() -> None:
    centre = JobCentre()
    done: list[Job] = []
    centre.on_done(done.append)

    async def work(job: Job) -> None:
        job.set_total(3)
        job.add_result("v1", True)
        job.add_result("v2", False, "403: forbidden")
        job.add_result("v3", True)

    job = centre.start("Delete tags", work)
    assert job.state is JobState.QUEUED
    await centre.wait(job)
    assert job.state is JobState.SUCCEEDED
    assert (job.done, job.total, job.fraction) == (3, 3, 1.0)
    assert [r.item for r in job.failed_items] == ["v2"]
    assert done == [job]
    assert centre.running == 0


async def test_cancel_marks_cancelled_and_cancel_after_finish_is_refused() -> None:
    centre = JobCentre()
    started = asyncio.Event()

    async def forever(job: Job) -> None:
        started.set()
        await asyncio.sleep(60)

    job = centre.start("Export", forever)
    await started.wait()
    assert centre.running == 1
    assert job.cancel() is True
    await centre.wait(job)
    assert job.state is JobState.CANCELLED
    assert job.cancel() is False


async def test_failure_is_described_not_raised() -> None:
    centre = JobCentre(describe_error=lambda e: f"described {e.status}")

    async def broken(job: Job) -> None:
        raise NotFound(404, "404 Project Not Found")

    job = await centre.wait(centre.start("Fork", broken))
    assert job.state is JobState.FAILED
    assert job.error == "described 404"


async def test_jobs_beyond_the_limit_wait_queued() -> None:
    centre = JobCentre(max_running=1)
    release = asyncio.Event()

    async def blocked(job: Job) -> None:
        await release.wait()

    first, second = centre.start("one", blocked), centre.start("two", blocked)
    await asyncio.sleep(0.01)
    assert (first.state, second.state) == (JobState.RUNNING, JobState.QUEUED)
    assert second.elapsed == 0.0
    release.set()
    await centre.wait(second)
    assert second.state is JobState.SUCCEEDED


async def test_elapsed_uses_the_clock_and_freezes_when_finished() -> None:
    now = [100.0]
    centre = JobCentre(clock=lambda: now[0])
    gate = asyncio.Event()

    async def work(job: Job) -> None:
        await gate.wait()

    job = centre.start("t", work)
    await asyncio.sleep(0)
    now[0] = 107.0
    assert job.elapsed == 7.0
    gate.set()
    await centre.wait(job)
    now[0] = 200.0
    assert job.elapsed == 7.0


async def test_change_listener_can_be_stopped() -> None:
    centre = JobCentre()
    seen: list[int] = []
    stop = centre.on_change(lambda job: seen.append(job.done))
    job = centre.start("t", lambda job: asyncio.sleep(0))
    await centre.wait(job)
    count = len(seen)
    assert count >= 2
    stop()
    await centre.wait(centre.start("u", lambda job: asyncio.sleep(0)))
    assert len(seen) == count


async def test_clear_finished_keeps_running_jobs() -> None:
    centre = JobCentre()
    gate = asyncio.Event()
    finished = await centre.wait(centre.start("done", lambda job: asyncio.sleep(0)))

    async def waiting(job: Job) -> None:
        await gate.wait()

    running = centre.start("running", waiting)
    centre.clear_finished()
    assert centre.jobs == [running] and finished not in centre.jobs
    await centre.cancel_all()
    assert running.state is JobState.CANCELLED


async def test_poll_until_backs_off_and_caps_the_interval() -> None:
    sleeps: list[float] = []
    answers = iter([1, 2, 3, 4, 5, 6, 7, 99])

    async def fake_sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def fetch() -> int:
        return next(answers)

    result = await poll_until(fetch, lambda v: v == 99, initial=1.0, factor=2.0, max_interval=5.0,
                              sleep=fake_sleep)
    assert result == 99
    assert sleeps == [1.0, 2.0, 4.0, 5.0, 5.0, 5.0, 5.0]


async def test_poll_until_times_out() -> None:
    now = [0.0]

    async def fake_sleep(seconds: float) -> None:
        now[0] += seconds

    async def fetch() -> str:
        return "pending"

    with pytest.raises(PollTimeout):
        await poll_until(fetch, lambda v: v == "done", initial=1.0, factor=1.5, timeout=10.0,
                         sleep=fake_sleep, clock=lambda: now[0])
    assert now[0] == pytest.approx(10.0)


@given(st.integers(min_value=0, max_value=20), st.lists(st.sampled_from(["advance", "result", "both"]),
                                                        max_size=40))
def test_progress_never_exceeds_the_total(total: int, steps: list[str]) -> None:
    job = Job(id=1, title="t", total=total)
    for step in steps:
        if step in ("advance", "both"):
            job.advance()
        if step in ("result", "both"):
            job.add_result("x", True)
        assert 0 <= job.done <= total
    job.set_total(max(0, total - 3))
    assert job.done <= job.total


def test_outcome_says_what_the_job_did() -> None:
    job = Job(id=1, title="Bulk", total=4, state=JobState.SUCCEEDED)
    for ok in (True, True, True, False):
        job.add_result("i", ok)
    assert outcome_text(job) == "3 ok, 1 failed"
    job.summarize("issue", "updated")
    assert outcome_text(job) == "3 issues updated, 1 failed"
    job.set_summary("deleted 12 tags")
    assert outcome_text(job) == "deleted 12 tags, 1 failed"
    assert outcome_text(Job(id=2, title="Quiet", state=JobState.SUCCEEDED)) == "done"
    assert outcome_text(Job(id=3, title="Broken", state=JobState.FAILED, error="404: gone")) == "404: gone"


async def test_a_finished_job_shows_its_progress_complete() -> None:
    """A group export counts 2 steps and its last one (saving the archive) adds a result without a step:
    finished, it shows 2/2, not 1/2."""
    from labdeck.tui.screens.shell.jobs import progress_text

    centre = JobCentre()

    async def export(job: Job) -> None:
        job.set_total(2)
        job.advance()
        job.add_result("acme_export.tar.gz", True, "1,024 bytes", advance=False)

    job = await centre.wait(centre.start("Export group acme", export))
    assert job.state is JobState.SUCCEEDED
    assert (job.done, job.total) == (2, 2)
    assert progress_text(job).endswith(" 2/2")

    async def fails(job: Job) -> None:
        job.set_total(2)
        job.advance()
        raise ValueError("broken")

    failed = await centre.wait(centre.start("Export group acme", fails))
    assert failed.state is JobState.FAILED and progress_text(failed).endswith(" 1/2")  # as far as it got
