"""The job centre: long operations (exports, forks, bulk deletes) run as asyncio tasks owned by the App.

This module is headless (no Textual import): the App subscribes to changes and completions and shows them.
A job function receives its `Job` and reports progress (`set_total`, `advance`) and per-item results
(`add_result`); raising marks the job failed, cancellation marks it cancelled. What a task says it did is
defined once, here: `Job.outcome` (succeeded, partly failed, failed, cancelled) from its run (`state`) and
its per-item results, which `:tasks`, the notification when it ends and the overview all show.
"""

from __future__ import annotations

import asyncio
import itertools
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, TypeVar

from labdeck.api.errors import LabdeckError, MalformedResponse, NetworkError, RateLimited, ServerError
from labdeck.api.journal import current_job

T = TypeVar("T")
RUN = uuid.uuid4().hex[:6]  # job keys in the undo journal are unique across runs: "<run>-<job id>"
# Failures of one poll that say nothing about the operation itself: ask again (a few times in a row).
TRANSIENT_ERRORS: tuple[type[BaseException], ...] = (
    NetworkError, MalformedResponse, ServerError, RateLimited)


class JobState(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"

    @property
    def finished(self) -> bool:
        return self in (JobState.SUCCEEDED, JobState.FAILED, JobState.CANCELLED)


class JobOutcome(StrEnum):
    """What a task did, as it says it (`Job.outcome`): its run's state, and for a run that ended by itself,
    its items': succeeded (none failed), partly failed (some), failed (all of them, or the run raised)."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    PARTLY_FAILED = "partly failed"
    FAILED = "failed"
    CANCELLED = "cancelled"


@dataclass(frozen=True)
class ItemResult:
    """The outcome of one item of a bulk job (a tag, an issue, a user)."""

    item: str
    ok: bool
    message: str = ""


@dataclass(eq=False)
class Job:
    """One long operation: title, state, progress (done/total, total None = indeterminate), results."""

    id: int
    title: str
    state: JobState = JobState.QUEUED
    done: int = 0
    total: int | None = None
    results: list[ItemResult] = field(default_factory=list)
    error: str | None = None
    summary: str | None = None  # what the job did, in words ("deleted 12 tags"), set by its function
    # what it covered, when less than it was asked to (a list cut at max_pages): said with its outcome
    caveat: str | None = None
    created_at: float = 0.0
    started_at: float | None = None
    finished_at: float | None = None
    clock: Callable[[], float] = time.monotonic
    _task: asyncio.Task[Any] | None = field(default=None, repr=False)
    _on_change: Callable[[Job], None] | None = field(default=None, repr=False)

    @property
    def key(self) -> str:
        """The job's key in the undo journal."""
        return f"{RUN}-{self.id}"

    @property
    def elapsed(self) -> float:
        """Seconds spent running (0 while queued; frozen once finished)."""
        if self.started_at is None:
            return 0.0
        end = self.finished_at if self.finished_at is not None else self.clock()
        return max(0.0, end - self.started_at)

    @property
    def fraction(self) -> float | None:
        """Progress between 0 and 1, or None when indeterminate."""
        if self.state is JobState.SUCCEEDED:
            return 1.0
        if not self.total:
            return None
        return min(1.0, self.done / self.total)

    @property
    def failed_items(self) -> list[ItemResult]:
        return [r for r in self.results if not r.ok]

    @property
    def outcome(self) -> JobOutcome:
        """The one rule of what a task did: a run that ended by itself succeeded only if no item failed;
        it failed if every item did (a task whose only item failed failed), else it partly failed. A run
        that raised failed; a cancelled one is cancelled (its items say how far it went)."""
        if self.state is not JobState.SUCCEEDED:
            return JobOutcome(self.state.value)
        failed = len(self.failed_items)
        if not failed:
            return JobOutcome.SUCCEEDED
        return JobOutcome.FAILED if failed == len(self.results) else JobOutcome.PARTLY_FAILED

    def outcome_text(self) -> str:
        """The outcome with its count when items failed: "failed: 1 of 1 item", "partly failed: 2 of 5
        items", "succeeded"."""
        outcome, failed = self.outcome, len(self.failed_items)
        if failed and outcome in (JobOutcome.FAILED, JobOutcome.PARTLY_FAILED):
            return f"{outcome.value}: {failed:,} of {counted(len(self.results), 'item')}"
        return outcome.value

    def set_total(self, total: int | None) -> None:
        self.total = total
        self.done = self._bounded(self.done)
        self._changed()

    def advance(self, count: int = 1) -> None:
        self.done = self._bounded(self.done + count)
        self._changed()

    def add_result(self, item: str, ok: bool, message: str = "", *, advance: bool = True) -> None:
        """Record one item's outcome (and count it as done unless `advance=False`)."""
        self.results.append(ItemResult(item, ok, message))
        if advance:
            self.done = self._bounded(self.done + 1)
        self._changed()

    def set_summary(self, text: str) -> None:
        """Say what the job did ("deleted 12 tags"): the job centre's Result column."""
        self.summary = text
        self._changed()

    def set_caveat(self, text: str) -> None:
        """Say that the job covered less than asked ("cut at max_pages: the first 300 issues read")."""
        self.caveat = text
        self._changed()

    def summarize(self, noun: str, verb: str) -> None:
        """`12 tags deleted, 1 failed` from the per-item results (`noun` singular)."""
        failed = len(self.failed_items)
        text = f"{counted(len(self.results) - failed, noun)} {verb}"
        self.set_summary(f"{text}, {failed:,} failed" if failed else text)

    def _bounded(self, done: int) -> int:
        """Progress never goes past the total (nor below 0)."""
        done = max(0, done)
        return min(done, self.total) if self.total is not None else done

    def cancel(self) -> bool:
        """Ask the job to stop; returns False when it has already finished."""
        if self.state.finished or self._task is None:
            return False
        self._task.cancel()
        return True

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change(self)


def counted(count: int, noun: str) -> str:
    """`1 tag`, `12 tags`."""
    return f"{count:,} {noun}" if count == 1 else f"{count:,} {noun}s"


def outcome_text(job: Job) -> str:
    """What a job did, for the Result column: its error, its summary, else a count of its results."""
    if job.error:
        return job.error
    failed = len(job.failed_items)
    if job.summary:
        text = job.summary
        if failed and "failed" not in text:
            text = f"{text}, {failed:,} failed"
    elif job.results:
        ok = len(job.results) - failed
        text = f"{ok:,} ok, {failed:,} failed" if failed else f"{ok:,} ok"
    elif job.state is JobState.SUCCEEDED:
        text = f"done ({job.done:,} of {job.total:,})" if job.total else "done"
    else:
        text = ""
    if job.caveat:
        text = f"{text} · {job.caveat}" if text else job.caveat
    if job.state is JobState.CANCELLED:
        text = f"cancelled · {text}" if text else "cancelled"
    return text


def still_running_text(running: int) -> str:
    """What quitting (or switching instance) would cancel, from the job centre's live count."""
    if not running:
        return "Every task has finished: nothing will be cancelled."
    return f"{counted(running, 'task')} still running will be cancelled."


JobFunction = Callable[[Job], Awaitable[Any]]
Listener = Callable[[Job], None]


class JobCentre:
    """Starts and tracks jobs; at most `max_running` run at once, the rest wait as queued."""

    def __init__(self, *, max_running: int = 4, clock: Callable[[], float] = time.monotonic,
                 describe_error: Callable[[BaseException], str] | None = None) -> None:
        self._jobs: list[Job] = []
        self._ids = itertools.count(1)
        self._slots = asyncio.Semaphore(max_running)
        self._clock = clock
        self._describe = describe_error or (lambda e: f"{type(e).__name__}: {e}")
        self._change_listeners: list[Listener] = []
        self._done_listeners: list[Listener] = []

    @property
    def jobs(self) -> list[Job]:
        return list(self._jobs)

    @property
    def running(self) -> int:
        """How many jobs are queued or running."""
        return sum(1 for job in self._jobs if not job.state.finished)

    def get(self, job_id: int) -> Job | None:
        return next((job for job in self._jobs if job.id == job_id), None)

    def on_change(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` on every change of any job; returns a function that stops it."""
        self._change_listeners.append(listener)

        def stop() -> None:
            if listener in self._change_listeners:
                self._change_listeners.remove(listener)

        return stop

    def on_done(self, listener: Listener) -> None:
        self._done_listeners.append(listener)

    def start(self, title: str, function: JobFunction, *, total: int | None = None) -> Job:
        """Create a job and schedule it on the running loop; returns at once."""
        job = Job(id=next(self._ids), title=title, total=total, created_at=self._clock(), clock=self._clock,
                  _on_change=self._notify_change)
        self._jobs.append(job)
        job._task = asyncio.get_running_loop().create_task(self._run(job, function), name=f"job-{job.id}")
        job._task.add_done_callback(lambda task: self._cancelled_before_start(job))
        self._notify_change(job)
        return job

    def cancel(self, job_id: int) -> bool:
        job = self.get(job_id)
        return job.cancel() if job else False

    def clear_finished(self) -> None:
        self._jobs = [job for job in self._jobs if not job.state.finished]

    async def wait(self, job: Job) -> Job:
        """Wait until the job has finished (whatever its outcome)."""
        if job._task is not None:
            await asyncio.wait([job._task])
        return job

    async def cancel_all(self) -> None:
        tasks = [job._task for job in self._jobs if job._task is not None and not job.state.finished]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _run(self, job: Job, function: JobFunction) -> None:
        try:
            async with self._slots:
                job.state = JobState.RUNNING
                job.started_at = self._clock()
                self._notify_change(job)
                current_job.set((job.key, job.title))  # this task's changes belong to the job
                await function(job)
            job.state = JobState.SUCCEEDED
            if job.total is not None:  # finished is all done: a last step that counts nothing (a
                job.done = job.total  # download saved after the export's steps) never leaves `1/2`
        except asyncio.CancelledError:
            job.state = JobState.CANCELLED
        except Exception as error:  # a job's failure is its result, never the App's crash
            job.state = JobState.FAILED
            job.error = self._describe(error)
        finally:
            job.finished_at = self._clock()
            if job.started_at is None:
                job.started_at = job.finished_at
            self._notify_change(job)
            for listener in list(self._done_listeners):
                listener(job)

    def _cancelled_before_start(self, job: Job) -> None:
        """A task cancelled before its first step never runs `_run`: record the outcome here."""
        if job.state.finished:
            return
        job.state = JobState.CANCELLED
        job.finished_at = job.started_at = self._clock()
        self._notify_change(job)
        for listener in list(self._done_listeners):
            listener(job)

    def _notify_change(self, job: Job) -> None:
        for listener in list(self._change_listeners):
            listener(job)


class PollTimeout(LabdeckError, TimeoutError):
    """`poll_until` gave up before the operation was done (an expected outcome: no crash report)."""


async def poll_until(fetch: Callable[[], Awaitable[T]], done: Callable[[T], bool], *, initial: float = 0.5,
                     factor: float = 1.5, max_interval: float = 10.0, timeout: float | None = None,  # noqa: ASYNC109
                     sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
                     clock: Callable[[], float] = time.monotonic,
                     tolerate: tuple[type[BaseException], ...] = TRANSIENT_ERRORS,
                     max_failures: int = 5) -> T:
    """Call `fetch` until `done(result)`, waiting `initial`, then `factor` times longer, capped at
    `max_interval`; raises `PollTimeout` once `timeout` seconds have passed. Returns the final result.
    A `tolerate` error of one poll (a 503, a reset, a bad body) is asked again, up to `max_failures` in a
    row: the operation runs on the server whatever happened to one status request."""
    start = clock()
    interval = initial
    failures = 0
    while True:
        try:
            result = await fetch()
        except tolerate:
            failures += 1
            if failures >= max_failures:
                raise
        else:
            failures = 0
            if done(result):
                return result
        if timeout is not None:
            remaining = timeout - (clock() - start)
            if remaining <= 0:
                raise PollTimeout(f"gave up after {timeout:g} s")
            await sleep(min(interval, remaining))
        else:
            await sleep(interval)
        interval = min(interval * factor, max_interval)
