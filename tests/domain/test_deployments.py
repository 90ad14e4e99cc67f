"""The pure deployment rules: status transitions, the exactly-one deploy rule, timeline summaries."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.deployments import (
    DeploymentFact,
    DeployRule,
    RuleError,
    allowed_transitions,
    can_transition,
    level_description,
    parse_rule,
    per_day,
    rule_problems,
    sha_problem,
    summarise,
    transition_error,
)


@pytest.mark.parametrize(("current", "allowed"), [
    ("created", ("running", "success", "failed", "canceled")),
    ("running", ("success", "failed", "canceled")),
    ("success", ("failed", "canceled")),
    ("failed", ("success", "canceled")),
    ("canceled", ("success", "failed")),
    ("bogus", ()),
])
def test_allowed_transitions(current: str, allowed: tuple[str, ...]) -> None:
    assert allowed_transitions(current) == allowed


def test_transition_errors_name_the_event() -> None:
    assert transition_error("created", "running") is None
    assert transition_error("success", "running") == 'cannot transition via "run"'
    assert transition_error("canceled", "canceled") == 'cannot transition via "cancel"'
    assert transition_error("created", "created") == "is invalid"
    assert not can_transition("running", "created")


def test_rule_exactly_one() -> None:
    assert parse_rule({"access_level": 40}) == DeployRule(access_level=40)
    assert parse_rule({"user_id": "7"}).kind == "user"
    assert parse_rule({"group_id": 3, "user_id": None}).as_json() == {"group_id": 3}
    with pytest.raises(RuleError, match="exactly one parameter must be provided"):
        parse_rule({})
    with pytest.raises(RuleError, match="mutually exclusive"):
        parse_rule({"user_id": 1, "group_id": 2}, 3)
    assert rule_problems({"user_id": 1, "group_id": 2}, 3) == [
        "deploy_access_levels[3][user_id], deploy_access_levels[3][group_id] are mutually exclusive"]


@pytest.mark.parametrize("level", [30, 40, 60])
def test_valid_levels(level: int) -> None:
    assert rule_problems({"access_level": level}) == []


@pytest.mark.parametrize("level", [0, 10, 20, 50])
def test_invalid_levels(level: int) -> None:
    assert rule_problems({"access_level": level}) == [
        "deploy_access_levels[0][access_level] does not have a valid value"]


def test_level_descriptions() -> None:
    assert [level_description(v) for v in (30, 40, 60)] == [
        "Developers + Maintainers", "Maintainers", "Administrators"]


def _at(day: int, hour: int = 12) -> datetime:
    return datetime(2026, 3, day, hour, tzinfo=UTC)


def test_per_day_window() -> None:
    times = [_at(1), _at(3), _at(3, 23), _at(5), _at(9)]
    assert per_day(times, date(2026, 3, 5), 5) == (1, 0, 2, 0, 1)


def test_summarise_rates_and_last_success() -> None:
    facts = [DeploymentFact("production", "success", _at(1), "v1"),
             DeploymentFact("production", "failed", _at(2)),
             DeploymentFact("production", "success", _at(3), "v2"),
             DeploymentFact("production", "running", _at(4)),
             DeploymentFact("staging", "canceled", _at(4))]
    production, staging = summarise(facts, date(2026, 3, 4), days=4)
    assert production.environment == "production" and production.per_day == (1, 1, 1, 1)
    assert (production.total, production.succeeded, production.finished) == (4, 2, 3)
    assert production.success_rate == pytest.approx(2 / 3)
    assert (production.last_success, production.last_success_ref) == (_at(3), "v2")
    assert staging.success_rate == 0.0 and staging.last_success is None
    assert summarise([DeploymentFact("x", "running", _at(1))], date(2026, 3, 1))[0].success_rate is None


def test_blocked_and_skipped_can_finish_but_not_run() -> None:
    from labdeck.domain.deployments import allowed_transitions

    for status in ("blocked", "skipped"):
        assert allowed_transitions(status) == ("success", "failed", "canceled")
    assert allowed_transitions("created") == ("running", "success", "failed", "canceled")
    assert allowed_transitions("waiting_for_resource") == ()


@pytest.mark.parametrize("sha", ["0123abc", "a" * 40, "DEADBEEF01", "f" * 64])
def test_a_commit_sha_is_7_to_40_hex_characters(sha: str) -> None:
    assert sha_problem(sha) is None


@pytest.mark.parametrize("sha", ["zzz-not-a-sha", "", "abc123", "a" * 41, "a" * 63, "g" * 40, " " + "a" * 40,
                                 "a" * 39 + "\n", "0123abc/", "main"])
def test_anything_else_is_refused(sha: str) -> None:
    assert "hexadecimal" in (sha_problem(sha) or "")


@given(st.text(max_size=70))
def test_a_sha_is_accepted_only_when_it_is_hex_of_a_length_git_makes(text: str) -> None:
    hexadecimal = all(c in "0123456789abcdefABCDEF" for c in text)
    assert (sha_problem(text) is None) == (hexadecimal and (7 <= len(text) <= 40 or len(text) == 64))
