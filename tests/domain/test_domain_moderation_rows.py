"""Rows of the user moderation state table not spelled out in `test_domain_moderation.py`: the other
blocked-like conditions (pending approval, banned) for each operation, and which refusal wins when an
account is in more than one refused condition."""

from __future__ import annotations

import pytest

from labdeck.domain.moderation import Account, Allowed, Refused, UserState, check

PENDING = Account(UserState.PENDING_APPROVAL)
BANNED = Account(UserState.BANNED)
BLOCKED = Account(UserState.BLOCKED)
LDAP = Account(UserState.LDAP_BLOCKED)
DEACTIVATED = Account(UserState.DEACTIVATED)
ACTIVE_INTERNAL = Account(UserState.ACTIVE, internal=True)
BLOCKED_MSG = "Error occurred. A blocked user cannot be deactivated"
UNBLOCK_FIRST = "Error occurred. A blocked user must be unblocked to be activated"


@pytest.mark.parametrize(("op", "account", "status", "message"), [
    ("approve", BANNED, 409, "The user you are trying to approve is not pending approval"),
    ("reject", BANNED, 409, "User does not have a pending request"),
    ("reject", DEACTIVATED, 409, "User does not have a pending request"),
    ("deactivate", PENDING, 403, BLOCKED_MSG),
    ("deactivate", BANNED, 403, BLOCKED_MSG),
    ("deactivate", Account(UserState.BLOCKED, internal=True, dormant=True), 403, BLOCKED_MSG),
    ("deactivate", Account(UserState.ACTIVE, internal=True, dormant=False), 403,
     "Internal users cannot be deactivated"),
    ("activate", PENDING, 403, UNBLOCK_FIRST),
    ("activate", BANNED, 403, UNBLOCK_FIRST),
    ("block", Account(UserState.LDAP_BLOCKED, internal=True), 403,
     "403 Forbidden - LDAP blocked users cannot be modified by the API"),
    ("ban", PENDING, 403, "You cannot ban blocked_pending_approval users."),
    ("ban", LDAP, 403, "You cannot ban ldap_blocked users."),
    ("ban", BANNED, 403, "You cannot ban banned users."),
    ("unban", BLOCKED, 403, "You cannot unban blocked users."),
    ("unban", PENDING, 403, "You cannot unban blocked_pending_approval users."),
])
def test_more_refusals(op: str, account: Account, status: int, message: str) -> None:
    assert check(op, account) == Refused(status, message)


@pytest.mark.parametrize(("op", "account", "result"), [
    ("unblock", PENDING, UserState.ACTIVE),
    ("unblock", BANNED, UserState.ACTIVE),
    ("block", PENDING, UserState.PENDING_APPROVAL),
    ("activate", DEACTIVATED, UserState.ACTIVE),
])
def test_more_outcomes(op: str, account: Account, result: UserState) -> None:
    outcome = check(op, account)
    assert isinstance(outcome, Allowed) and outcome.result is result
    assert outcome.changed == (result is not account.state)


def test_a_non_admin_refusal_wins_over_the_state() -> None:
    reject = check("reject", DEACTIVATED, caller_is_admin=False)
    approve = check("approve", BLOCKED, caller_is_admin=False)
    assert reject == Refused(403, "You are not allowed to reject a user")
    assert approve == Refused(403, "You are not allowed to approve a user")


def test_internal_active_users_cannot_be_blocked() -> None:
    assert check("block", ACTIVE_INTERNAL) == Refused(403, "An internal user cannot be blocked")
