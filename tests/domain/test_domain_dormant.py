"""GitLab's dormant users (`app/models/user.rb`: the `dormant` and `with_no_activity` scopes), with an
injected "today": no activity for the period (90 days by default), or none at all on an account created at
least 7 days ago. Users who signed up 1 to 4 days ago and never signed in were shown as `active, dormant`."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.moderation import MINIMUM_DAYS_CREATED, is_dormant

TODAY = date(2026, 6, 15)


def created(days_ago: int, hour: int = 12) -> datetime:
    return datetime.combine(TODAY - timedelta(days=days_ago), datetime.min.time(), tzinfo=UTC) + timedelta(
        hours=hour)


@pytest.mark.parametrize("days", [0, 1, 2, 3, 4, 5, 6])
def test_new_accounts_that_never_signed_in_are_not_dormant(days: int) -> None:
    assert not is_dormant("active", user_type="human", last_activity_on=None, created_at=created(days),
                          today=TODAY)


def test_the_seven_day_rule_is_gitlabs_sql() -> None:
    midnight = datetime.combine(TODAY - timedelta(days=7), datetime.min.time(), tzinfo=UTC)
    never = {"user_type": "human", "last_activity_on": None, "today": TODAY}
    assert is_dormant("active", created_at=midnight, **never)  # created_at <= 7.days.ago.to_date
    assert not is_dormant("active", created_at=midnight + timedelta(seconds=1), **never)
    assert is_dormant("active", created_at=created(8), **never)
    assert not is_dormant("active", created_at=None, **never)  # unknown: never offered as dormant


def test_the_period_counts_from_the_last_activity() -> None:
    def dormant(last: date, period: int = 90) -> bool:
        return is_dormant("active", user_type=None, last_activity_on=last, created_at=created(900),
                          today=TODAY, period_days=period)

    assert dormant(TODAY - timedelta(days=90)) and not dormant(TODAY - timedelta(days=89))
    assert dormant(TODAY - timedelta(days=180), 180) and not dormant(TODAY - timedelta(days=179), 180)


@pytest.mark.parametrize("state", ["blocked", "banned", "deactivated", "blocked_pending_approval",
                                   "ldap_blocked"])
def test_only_active_accounts_are_dormant(state: str) -> None:
    assert not is_dormant(state, user_type="human", last_activity_on=date(2020, 1, 1),
                          created_at=created(900), today=TODAY)


@pytest.mark.parametrize(("user_type", "expected"), [
    ("human", True), (None, True), ("service_user", True), ("project_bot", False), ("ghost", False),
    ("support_bot", False), ("service_account", False),
])
def test_only_human_or_service_users_are_dormant(user_type: str | None, expected: bool) -> None:
    assert is_dormant("active", user_type=user_type, last_activity_on=None, created_at=created(30),
                      today=TODAY) is expected


@given(created_days=st.integers(0, 4000), idle=st.none() | st.integers(0, 4000),
       period=st.integers(90, 400), hour=st.integers(0, 23))
def test_dormant_means_idle_for_the_period_or_never_active_for_a_week(created_days: int, idle: int | None,
                                                                      period: int, hour: int) -> None:
    last = None if idle is None else TODAY - timedelta(days=idle)
    got = is_dormant("active", user_type="human", last_activity_on=last,
                     created_at=created(created_days, hour), today=TODAY, period_days=period)
    if idle is not None:
        assert got is (idle >= period)
    else:
        week = MINIMUM_DAYS_CREATED
        assert got is (created_days > week or (created_days == week and hour == 0))
