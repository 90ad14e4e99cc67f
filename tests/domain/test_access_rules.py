"""The access review's rules for tokens and members (issue 36): a token's state as GitLab gives it
(`app/models/personal_access_token.rb`, `Expirable`: expired at midnight UTC of its date, revoked first),
expiring within N days, never expiring, unused for N days; who is an Owner of a group, and the filters."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.access_members import Grant, MemberFilter, effective, owners_per_group, parse_level_filter
from labdeck.domain.access_tokens import (
    TokenFilter,
    TokenRow,
    bot_kind,
    days_left,
    expires_within,
    token_state,
    unused_for,
)

TODAY = date(2026, 12, 6)
NOW = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)


def test_token_states() -> None:
    assert token_state(False, None, TODAY) == "active"  # never expires
    assert token_state(False, TODAY, TODAY) == "expired"  # its date is today: expired at midnight
    assert token_state(False, TODAY + timedelta(days=1), TODAY) == "active"
    assert token_state(True, TODAY + timedelta(days=100), TODAY) == "revoked"
    assert token_state(True, TODAY - timedelta(days=1), TODAY) == "revoked"


def test_expiring_within_and_unused_for() -> None:
    assert expires_within(TODAY + timedelta(days=3), TODAY, 30)
    assert expires_within(TODAY + timedelta(days=30), TODAY, 30)
    assert not expires_within(TODAY + timedelta(days=31), TODAY, 30)
    assert not expires_within(TODAY - timedelta(days=2), TODAY, 30)  # expired already: not "expiring"
    assert not expires_within(None, TODAY, 30)
    assert unused_for(NOW - timedelta(days=200), None, NOW, 90)
    assert not unused_for(NOW - timedelta(days=2), NOW - timedelta(days=900), NOW, 90)
    assert unused_for(None, NOW - timedelta(days=100), NOW, 90)  # never used, made 100 days ago
    assert not unused_for(None, NOW - timedelta(days=1), NOW, 90)
    assert not unused_for(None, None, NOW, 90)


def test_bot_kind() -> None:
    assert bot_kind("group_108_bot_0123abcd") == "group"
    assert bot_kind("project_7_bot") == "project"
    assert bot_kind("alice") is None and bot_kind("project_7_botany") is None


@given(st.booleans(), st.one_of(st.none(), st.integers(-400, 400)), st.integers(1, 400))
def test_token_state_and_expiry_agree(revoked: bool, offset: int | None, window: int) -> None:
    expires = None if offset is None else TODAY + timedelta(days=offset)
    state = token_state(revoked, expires, TODAY)
    left = days_left(expires, TODAY)
    if not revoked:
        assert (state == "expired") == (left is not None and left <= 0)
    if expires_within(expires, TODAY, window):
        assert left is not None and 0 < left <= window and token_state(False, expires, TODAY) == "active"


def test_token_filter() -> None:
    rows = [TokenRow(1, "personal", "ci", "@alice", expires_at=TODAY + timedelta(days=3)),
            TokenRow(2, "personal", "old", "@bob", expires_at=TODAY - timedelta(days=10)),
            TokenRow(3, "project", "push", "fleet/data/x", expires_at=None)]
    assert [r.id for r in rows if TokenFilter(expires_within=30).matches(r, NOW)] == [1]
    assert [r.id for r in rows if TokenFilter(state="expired").matches(r, NOW)] == [2]
    assert [r.id for r in rows if TokenFilter(never_expires=True).matches(r, NOW)] == [3]
    assert [r.id for r in rows if TokenFilter(owner="ALICE").matches(r, NOW)] == [1]


def grant(user: int, path: str, level: int, **kw: object) -> Grant:
    return Grant(user, f"u{user}", path, "group", level, **kw)  # type: ignore[arg-type]


def test_owners_per_group_counts_inherited_owners_once() -> None:
    grants = [grant(1, "fleet", 50), grant(2, "fleet/core", 50), grant(1, "fleet/core", 50),
              grant(3, "fleet/core", 40), grant(4, "fleet/web", 50, via="shared", source="ops")]
    assert owners_per_group(grants, ["fleet", "fleet/core", "fleet/web"]) == \
        {"fleet": 1, "fleet/core": 2, "fleet/web": 2}


def test_effective_keeps_the_highest_and_the_nearest_at_a_tie() -> None:
    top, near = grant(1, "a", 40), grant(1, "a/b", 40)
    assert effective([top, near], "a/b/c")[1] is near
    higher = grant(1, "a", 50)
    assert effective([higher, near], "a/b/c")[1] is higher


def test_member_filter() -> None:
    soon = grant(1, "fleet/web", 30, expires_at=TODAY + timedelta(days=5))
    owner = grant(2, "fleet/core", 50)
    assert MemberFilter(level=parse_level_filter("maintainer")).matches(owner, TODAY)
    assert not MemberFilter(level=parse_level_filter("maintainer")).matches(soon, TODAY)
    assert MemberFilter(expires_within=7).matches(soon, TODAY)
    assert not MemberFilter(expires_within=4).matches(soon, TODAY)
    assert MemberFilter(user="@U2").matches(owner, TODAY)
    assert MemberFilter(path="fleet").matches(owner, TODAY) and not MemberFilter(path="flee").matches(owner,
                                                                                                        TODAY)


def test_filter_lines() -> None:
    import pytest

    from labdeck.domain.access_filters import (
        FilterError,
        parse_member_filter,
        parse_token_filter,
        parse_variable_filter,
    )

    assert parse_member_filter("owner @alice expires:7 path:fleet/") == MemberFilter(
        level=50, user="alice", expires_within=7, path="fleet")
    assert parse_member_filter("level:Maintainer").level == 40
    assert parse_token_filter("expired project") == TokenFilter(state="expired", kind="project")
    assert parse_token_filter("expiring unused never @bob laptop") == TokenFilter(
        expires_within=30, unused_for=90, never_expires=True, owner="@bob", name="laptop")
    assert parse_token_filter("expires:3 unused:200").unused_for == 200
    assert parse_variable_filter("findings group DEPLOY_*") == \
        parse_variable_filter("findings group key:DEPLOY_*")
    assert parse_variable_filter("losing path:fleet/edge").losing
    for bad, parse in (("boss", parse_member_filter), ("expires:x", parse_member_filter),
                       ("state:gone", parse_token_filter), ("expires:²", parse_token_filter),
                       ("colour:red", parse_variable_filter)):
        with pytest.raises(FilterError):
            parse(bad)  # type: ignore[operator]
