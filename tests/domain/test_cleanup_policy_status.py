"""Why a cleanup policy did or did not run, and when it runs next (domain/cleanup_policy_status.py)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from labdeck.domain.cleanup_policy import Policy, PolicyPlanner
from labdeck.domain.cleanup_policy_status import RepositoryState, explain, schedule
from labdeck.domain.registry_cleanup import TagInfo

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def tags(count: int, days: int = 100) -> list[TagInfo]:
    return [TagInfo(f"t{i:04d}", NOW - timedelta(days=days + i), f"sha256:{i}", 10) for i in range(count)]


def test_disabled_and_regex_matching_nothing_are_said() -> None:
    policy = Policy(enabled=False, name_regex="nomatch")
    plan = PolicyPlanner(tags(3)).plan(policy, NOW)
    lines = explain(policy, NOW, [("", plan)])
    assert any("disabled" in line for line in lines)
    assert any("matches no tag" in line for line in lines)
    assert explain(None, NOW, [])[0].startswith("This project has no cleanup policy")


def test_next_run_in_the_past_with_nothing_started_is_said() -> None:
    policy = Policy(enabled=True, next_run_at=NOW - timedelta(days=2))
    plan = PolicyPlanner(tags(3)).plan(policy, NOW)
    stale = explain(policy, NOW, [("app", plan)], [RepositoryState("app", None, None)])
    assert any("is in the past" in line for line in stale)
    ran = explain(policy, NOW, [("app", plan)],
                  [RepositoryState("app", NOW - timedelta(days=1), "cleanup_unfinished")])
    assert not any("is in the past" in line for line in ran)
    assert any("more runs follow" in line for line in ran)


def test_schedule_counts_runs_and_the_following_date() -> None:
    policy = Policy(enabled=True, keep_n=None, older_than=None, cadence="7d",
                    next_run_at=NOW + timedelta(hours=3))
    plan = PolicyPlanner(tags(450)).plan(policy, NOW, max_list_size=200)
    result = schedule(policy, NOW, [plan])
    assert result.first_at == NOW + timedelta(hours=3) and result.runs == 3
    assert result.next_scheduled == NOW + timedelta(days=7, hours=3)
    assert "2 more right after" in result.describe()
    assert any("exceed the per-run limit" in line for line in explain(policy, NOW, [("", plan)]))
    overdue = schedule(Policy(enabled=True, next_run_at=NOW - timedelta(days=1)), NOW, [])
    assert overdue.first_at == NOW and overdue.runs == 1
    assert schedule(Policy(enabled=False, next_run_at=NOW), NOW, [plan]).first_at is None


def test_an_idle_repository_that_never_started_is_not_said_to_have_finished_a_run() -> None:
    """GitLab's `cleanup_unscheduled` is its idle state: with no start, there is no last run to have finished
    ("never started, finished its last run" was shown)."""
    policy = Policy(enabled=True, next_run_at=NOW + timedelta(hours=3))
    plan = PolicyPlanner(tags(3)).plan(policy, NOW)
    lines = explain(policy, NOW, [("app", plan)], [RepositoryState("app", None, "cleanup_unscheduled")])
    assert not any("finished its last run" in line for line in lines)
    started = explain(policy, NOW, [("app", plan)],
                      [RepositoryState("app", NOW - timedelta(days=1), "cleanup_unscheduled")])
    assert any("last started" in line and "finished its last run" in line for line in started)
