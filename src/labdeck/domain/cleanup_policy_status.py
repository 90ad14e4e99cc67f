"""When a project's cleanup policy runs next, how many runs it needs, and why it did or did not run, in words.

GitLab's scheduler starts the runs of a policy whose `next_run_at` has passed (cron, then the limited-capacity
`CleanupContainerRepositoryWorker`); starting sets `next_run_at` to now + cadence. A run stopped by the
per-run limit leaves its repository `cleanup_unfinished`, and the workers take it up again as soon as one is
free, before the next scheduled date: so the runs a preview counts follow one another, not one per cadence.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from labdeck.domain.cleanup_policy import Policy, RepositoryPlan, next_run_after

_STATUS_WORDS = {
    "cleanup_unscheduled": "finished its last run",
    "unscheduled": "finished its last run",
    "cleanup_scheduled": "is waiting for a cleanup worker",
    "scheduled": "is waiting for a cleanup worker",
    "cleanup_unfinished": "stopped at the per-run limit or the time limit; more runs follow",
    "unfinished": "stopped at the per-run limit or the time limit; more runs follow",
    "cleanup_ongoing": "is being cleaned up now",
    "ongoing": "is being cleaned up now",
}


@dataclass(frozen=True, slots=True)
class RepositoryState:
    """What the instance says of a repository's last cleanup (REST `cleanup_policy_started_at`; GraphQL
    `expirationPolicyStartedAt` and `expirationPolicyCleanupStatus` where it has them)."""

    name: str
    started_at: datetime | None = None
    status: str | None = None


@dataclass(frozen=True, slots=True)
class Schedule:
    first_at: datetime | None
    runs: int
    next_scheduled: datetime | None

    def describe(self) -> str:
        if self.first_at is None:
            return "no run is scheduled"
        text = f"next run {_when(self.first_at)}"
        if self.runs > 1:
            text += f", then {self.runs - 1} more right after (per-run limit)"
        if self.next_scheduled is not None:
            text += f"; the following one {_when(self.next_scheduled)}"
        return text


def _when(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def schedule(policy: Policy, now: datetime, plans: Sequence[RepositoryPlan]) -> Schedule:
    """When the next run starts (its `next_run_at`, or now when that has passed), how many runs it takes (the
    most any repository needs), and when the run after that falls (start + cadence)."""
    if not policy.enabled or policy.next_run_at is None:
        return Schedule(None, 0, None)
    first = max(policy.next_run_at, now)
    runs = max((plan.runs for plan in plans), default=1)
    return Schedule(first, runs, next_run_after(policy, first))


def explain(policy: Policy | None, now: datetime, plans: Sequence[tuple[str, RepositoryPlan | None]],
            states: Sequence[RepositoryState] = (), *, invalid: str | None = None) -> list[str]:
    """Why the policy did or did not run, and what its next run does, as sentences for the operator.
    `plans` pairs each repository's name with its simulation (None when its tags could not be read);
    `invalid` is the reason a pattern cannot be applied."""
    if policy is None:
        return ["This project has no cleanup policy (its registry may be disabled): nothing is deleted."]
    lines: list[str] = []
    if not policy.enabled:
        lines.append("The policy is disabled: GitLab runs nothing until it is enabled.")
    if invalid is not None or policy.errors():
        detail = invalid or "; ".join(f"{k} {v[0]}" for k, v in policy.errors().items())
        lines.append(f"The policy is invalid ({detail}): GitLab disables such a policy when it comes to run.")
    if not plans:
        lines.append("The project has no container repository: a run has nothing to do.")
    readable = [(name, plan) for name, plan in plans if plan is not None]
    if readable and all(plan.candidates == 0 for _, plan in readable):
        pattern = policy.name_regex if policy.name_regex is not None else "(none)"
        lines.append(f"The remove regex `{pattern}` (name_regex, anchored) matches no tag outside the keep "
                     "rules in any repository: every run deletes nothing.")
    elif readable and all(plan.deleted_count == 0 for _, plan in readable):
        lines.append("Every matching tag is kept by keep_n, older_than or a protection rule: the next run "
                     "deletes nothing.")
    for name, plan in readable:
        if plan.truncated:
            lines.append(f"{_label(name)}: {plan.candidates} candidates exceed the per-run limit "
                         f"({plan.max_list_size} + keep_n): GitLab samples them at random, at most "
                         f"{plan.max_list_size} go per run, {plan.runs} runs at least.")
        if plan.ties:
            lines.append(f"{_label(name)}: {len(plan.ties)} tags share the creation date at the keep_n "
                         "boundary; GitLab's order among them, so which one is kept, is unspecified.")
    unread = [name for name, plan in plans if plan is None]
    if unread:
        lines.append(f"{len(unread)} repositories could not be read: their outcome is unknown.")
    lines.extend(_history(policy, now, states))
    return lines


def _history(policy: Policy, now: datetime, states: Sequence[RepositoryState]) -> list[str]:
    lines: list[str] = []
    due = policy.next_run_at
    if policy.enabled and due is not None and due < now - timedelta(hours=1):
        stale = [s for s in states if s.started_at is None or s.started_at < due]
        if states and stale:
            lines.append(f"next_run_at ({_when(due)}) is in the past and {len(stale)} of {len(states)} "
                         "repositories have not started a cleanup since: the cleanup workers have not "
                         "picked it up (worker capacity 0, a backlog, or cleanups turned off).")
    for state in states:
        status = (state.status or "").lower()
        words = _STATUS_WORDS.get(status)
        if state.started_at is None and status.endswith("unscheduled"):
            words = None  # GitLab's idle state: with no start there is no last run to have finished
        if state.started_at is None and words is None:
            continue
        started = f"last started {_when(state.started_at)}" if state.started_at else "never started"
        lines.append(f"{_label(state.name)}: {started}" + (f", {words}" if words else "") + ".")
    return lines


def _label(name: str) -> str:
    return f"repository {name}" if name else "the root repository"
