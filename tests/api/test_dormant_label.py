"""Users created 1 to 4 days ago who never signed in are `active`, not `active, dormant`, and are not offered
for deactivation; after GitLab's 7 days without any activity they are dormant."""

from __future__ import annotations

from datetime import date

import pytest

from labdeck.api.models.base import parse_one
from labdeck.api.models.moderation import Condition, ModeratedUser

TODAY = date(2026, 6, 15)


def _user(created: str, last: str | None = None, user_type: str = "human") -> ModeratedUser:
    return parse_one(ModeratedUser, {"id": 7, "username": "newbie", "state": "active", "created_at": created,
                                     "last_activity_on": last, "user_type": user_type})


@pytest.mark.parametrize("created", ["2026-06-14T08:00:00Z", "2026-06-13T23:59:59Z", "2026-06-11T00:00:00Z",
                                     "2026-06-09T12:00:00.000+02:00"])
def test_a_new_account_that_never_signed_in_is_just_active(created: str) -> None:
    user = _user(created)
    assert user.state_label(TODAY) == "active"
    assert user.conditions(TODAY) == {Condition.ACTIVE}
    deactivate = next(a for a in user.operations(TODAY) if a.op.value == "deactivate")
    assert not deactivate.enabled


def test_after_a_week_without_any_activity_it_is_dormant() -> None:
    user = _user("2026-06-07T09:00:00Z")
    assert user.state_label(TODAY) == "active, dormant"
    assert user.conditions(TODAY) == {Condition.ACTIVE, Condition.DORMANT}


def test_a_project_bot_is_never_dormant() -> None:
    assert _user("2020-01-01T00:00:00Z", "2021-01-01", user_type="project_bot").state_label(TODAY) == "active"
