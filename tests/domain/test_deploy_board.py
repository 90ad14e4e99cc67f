"""The group deployments board's rules (domain/deploy_board): rows, folding, rates, drift, order, filters,
sparkline; with an injected now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.deploy_board import (
    DeployRecord,
    ProjectDeploys,
    age_text,
    build_board,
    drift,
    matches,
    project_rows,
    row_name,
    sparkline,
    success_rate,
)

NOW = datetime(2026, 5, 20, 12, 0, tzinfo=UTC)
_ids = iter(range(1, 10**9))


def rec(env: str, status: str, hours_ago: float, sha: str = "a", ref: str = "main",
        user: str = "alice") -> DeployRecord:
    return DeployRecord(next(_ids), env, status, ref, sha * 40 if len(sha) == 1 else sha, user,
                        NOW - timedelta(hours=hours_ago))


def test_review_apps_fold_into_their_folder() -> None:
    assert row_name("review/fix-login") == "review/*"
    assert row_name("review/a/b") == "review/*"
    assert row_name("production") == "production"
    project = ProjectDeploys(1, "g/p", ("production", "staging", "review/a", "review/b"), (
        rec("review/a", "success", 30), rec("review/b", "failed", 5), rec("production", "success", 2)))
    rows = project_rows(project, NOW)
    assert [r.environment for r in rows] == ["production", "staging", "review/*"]
    review = rows[2]
    assert review.environments == ("review/a", "review/b")
    assert review.last is not None and review.last.environment == "review/b" and review.status == "failed"
    assert review.drift is None  # folders have no drift
    assert rows[1].last is None and rows[1].rate_30 is None and rows[1].age is None


def test_last_deployment_age_rates_and_per_day() -> None:
    records = (rec("staging", "success", 24 * 20), rec("staging", "failed", 24 * 10),
               rec("staging", "success", 24 * 3), rec("staging", "canceled", 24 * 2),
               rec("staging", "running", 1, sha="b", ref="v1.2.0", user="bob"),
               rec("staging", "success", 24 * 40))  # outside the 30 days
    row = project_rows(ProjectDeploys(1, "g/p", ("staging",), records), NOW)[0]
    assert row.last is not None and row.last.user == "bob" and row.last.ref == "v1.2.0"
    assert row.status == "running" and row.short_sha == "bbbbbbbb"
    assert row.age == timedelta(hours=1) and age_text(row.age) == "1h"
    assert row.rate_7 == 1 / 2  # success, canceled (running is not finished)
    assert row.rate_30 == 2 / 4
    assert len(row.per_day) == 30 and sum(row.per_day) == 5 and row.per_day[-1] == 1
    assert not row.failed_recently


def test_failed_in_the_last_24_hours_comes_first() -> None:
    quiet = ProjectDeploys(1, "a/quiet", ("production",), (rec("production", "success", 2),))
    broke = ProjectDeploys(2, "z/broke", ("production", "staging"), (
        rec("production", "failed", 3), rec("staging", "failed", 30)))
    older = ProjectDeploys(3, "m/older", ("production",), (rec("production", "failed", 20),))
    empty = ProjectDeploys(4, "b/none", ())
    board = build_board([quiet, broke, older, empty], NOW)
    assert [(r.project, r.environment) for r in board.rows] == [
        ("z/broke", "production"), ("m/older", "production"), ("a/quiet", "production"),
        ("z/broke", "staging")]
    assert [r.failed_recently for r in board.rows] == [True, True, False, False]
    assert board.without_environments == ["b/none"]


def test_drift_ahead_behind_same_differs() -> None:
    production = [rec("production", "success", 50, sha="a"), rec("production", "failed", 40, sha="b")]
    staging = [rec("staging", "success", 60, sha="a"), rec("staging", "success", 45, sha="b"),
               rec("staging", "failed", 44, sha="x"), rec("staging", "success", 30, sha="c")]
    ahead = drift("staging", staging, production)
    assert ahead is not None and (ahead.kind, ahead.count) == ("ahead", 2)
    assert ahead.text() == "staging is 2 deployments ahead of production"
    assert ahead.sha == "c" * 40 and ahead.production_sha == "a" * 40
    behind = drift("staging", staging[:1], [*production, rec("production", "success", 10, sha="d")])
    assert behind is not None and (behind.kind, behind.count) == ("behind", 1)
    assert behind.text() == "staging is 1 deployment behind production"
    same = drift("staging", staging[:1], production)
    assert same is not None and same.kind == "same"
    hotfix = drift("staging", staging, [rec("production", "success", 5, sha="h", ref="v2.0.1")])
    assert hotfix is not None and hotfix.kind == "differs"
    assert hotfix.text() == f"staging runs main {'c' * 8}, production runs v2.0.1 {'h' * 8}"
    assert drift("staging", [rec("staging", "failed", 1)], production) is None


def test_rows_carry_drift_only_beside_a_production() -> None:
    records = (rec("production", "success", 5, sha="a"), rec("staging", "success", 6, sha="a"),
               rec("staging", "success", 2, sha="b"))
    rows = project_rows(ProjectDeploys(1, "g/p", ("production", "staging", "qa"), records), NOW)
    by_name = {r.environment: r for r in rows}
    assert by_name["production"].drift is None and by_name["qa"].drift is None
    staging = by_name["staging"].drift
    assert staging is not None and (staging.kind, staging.count) == ("ahead", 1)
    alone = project_rows(ProjectDeploys(1, "g/p", ("staging",), records[1:]), NOW)
    assert alone[0].drift is None


def test_filters() -> None:
    row = project_rows(ProjectDeploys(1, "g/p", ("review/a",), (rec("review/a", "failed", 3),)), NOW)[0]
    assert matches(row, environment="REVIEW") and matches(row, environment="review/a")
    assert not matches(row, environment="prod")
    assert matches(row, status="failed") and not matches(row, status="success")
    assert matches(row, max_age=timedelta(hours=4)) and not matches(row, max_age=timedelta(hours=2))


def test_sparkline() -> None:
    assert sparkline([0, 1, 2, 4, 8]) == " ▁▂▄█"
    assert sparkline([0, 0]) == "  "
    assert sparkline([]) == ""


statuses = st.sampled_from(["success", "failed", "canceled", "running", "created"])
records = st.lists(st.tuples(st.sampled_from(["production", "staging", "review/a", "review/b"]), statuses,
                             st.floats(min_value=0, max_value=24 * 45), st.sampled_from("abcd")),
                   max_size=40)


@given(records)
def test_rows_are_consistent_whatever_the_history(raw: list[tuple[str, str, float, str]]) -> None:
    deployments = tuple(rec(env, status, hours, sha=sha) for env, status, hours, sha in raw)
    project = ProjectDeploys(7, "g/p", ("production", "staging", "review/a", "review/b"), deployments)
    rows = project_rows(project, NOW)
    assert [r.environment for r in rows] == ["production", "staging", "review/*"]
    in_window = [d for d in deployments if d.created_at.date() > (NOW - timedelta(days=30)).date()]
    assert sum(sum(r.per_day) for r in rows) == len(in_window)
    for row in rows:
        mine = [d for d in deployments if d.environment in row.environments]
        if row.last is not None:
            assert row.last.created_at == max(d.created_at for d in mine)
        for rate in (row.rate_7, row.rate_30):
            assert rate is None or 0 <= rate <= 1
        assert row.failed_recently == (row.status == "failed" and row.age is not None
                                       and row.age <= timedelta(hours=24))
        if row.drift is not None:
            assert row.drift.kind in ("same", "ahead", "behind", "differs")
            assert (row.drift.kind == "same") == (row.drift.sha == row.drift.production_sha)
            assert row.drift.count >= (1 if row.drift.kind in ("ahead", "behind") else 0)


@given(st.lists(st.integers(min_value=0, max_value=500), max_size=40))
def test_sparkline_keeps_order_and_length(values: list[int]) -> None:
    line = sparkline(values)
    assert len(line) == len(values)
    levels = [" ▁▂▃▄▅▆▇█".index(c) for c in line]
    for i in range(len(values) - 1):
        if values[i] <= values[i + 1]:
            assert levels[i] <= levels[i + 1]


def test_success_rate_counts_only_finished_since() -> None:
    records = [rec("p", "success", 1), rec("p", "running", 1), rec("p", "failed", 100)]
    assert success_rate(records, NOW - timedelta(hours=2)) == 1.0
    assert success_rate(records, NOW - timedelta(hours=200)) == 0.5
    assert success_rate([rec("p", "running", 1)], NOW - timedelta(hours=2)) is None
