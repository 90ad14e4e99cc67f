"""The user account moderation state machine (GitLab's API docs and GitLab's users API)."""

from __future__ import annotations

import pytest

from labdeck.domain.moderation import (
    Account,
    Allowed,
    Operation,
    Refused,
    UserState,
    allowed_operations,
    check,
)

ACTIVE = Account(UserState.ACTIVE)
DORMANT = Account(UserState.ACTIVE, dormant=True)
PENDING = Account(UserState.PENDING_APPROVAL)
BLOCKED = Account(UserState.BLOCKED)
LDAP = Account(UserState.LDAP_BLOCKED)
DEACTIVATED = Account(UserState.DEACTIVATED)
BANNED = Account(UserState.BANNED)
INTERNAL = Account(UserState.ACTIVE, internal=True, dormant=True)


@pytest.mark.parametrize(
    ("op", "account", "status", "body", "result"),
    [
        ("approve", PENDING, 201, {"message": "Success"}, UserState.ACTIVE),
        ("reject", PENDING, 200, {"message": "Success"}, None),
        ("deactivate", DORMANT, 201, True, UserState.DEACTIVATED),
        ("activate", DEACTIVATED, 201, True, UserState.ACTIVE),
        ("block", ACTIVE, 201, True, UserState.BLOCKED),
        ("block", DEACTIVATED, 201, True, UserState.BLOCKED),
        ("unblock", BLOCKED, 201, True, UserState.ACTIVE),
        ("ban", ACTIVE, 201, True, UserState.BANNED),
        ("unban", BANNED, 201, True, UserState.ACTIVE),
    ],
)
def test_successful_operations(op: str, account: Account, status: int, body: object,
                               result: UserState | None) -> None:
    outcome = check(op, account)
    assert outcome == Allowed(status, body, result, changed=True)


@pytest.mark.parametrize(
    ("op", "account", "status", "message"),
    [
        ("approve", BLOCKED, 403, None),
        ("approve", LDAP, 403, None),
        ("approve", DEACTIVATED, 409, "The user you are trying to approve is not pending approval"),
        ("approve", ACTIVE, 409, "The user you are trying to approve is not pending approval"),
        ("reject", ACTIVE, 409, "User does not have a pending request"),
        ("reject", BLOCKED, 409, "User does not have a pending request"),
        ("deactivate", BLOCKED, 403, "Error occurred. A blocked user cannot be deactivated"),
        ("deactivate", LDAP, 403, "Error occurred. A blocked user cannot be deactivated"),
        ("deactivate", ACTIVE, 403,
         "The user you are trying to deactivate has been active in the past 90 days "
         "and cannot be deactivated"),
        ("deactivate", INTERNAL, 403, "Internal users cannot be deactivated"),
        ("activate", BLOCKED, 403, "Error occurred. A blocked user must be unblocked to be activated"),
        ("activate", LDAP, 403, "Error occurred. A blocked user must be unblocked to be activated"),
        ("block", LDAP, 403, "403 Forbidden - LDAP blocked users cannot be modified by the API"),
        ("block", INTERNAL, 403, "An internal user cannot be blocked"),
        ("unblock", LDAP, 403, "403 Forbidden - LDAP blocked users cannot be unblocked by the API"),
        ("unblock", DEACTIVATED, 403, "403 Forbidden - Deactivated users cannot be unblocked by the API"),
        ("ban", BLOCKED, 403, "You cannot ban blocked users."),
        ("ban", DEACTIVATED, 403, "You cannot ban deactivated users."),
        ("unban", ACTIVE, 403, "You cannot unban active users."),
    ],
)
def test_refusals(op: str, account: Account, status: int, message: str | None) -> None:
    outcome = check(op, account)
    assert isinstance(outcome, Refused)
    assert outcome.status == status
    if message is not None:
        assert outcome.message == message
    assert outcome.body == {"message": outcome.message}


@pytest.mark.parametrize("op", list(Operation))
def test_every_operation_needs_an_administrator(op: Operation) -> None:
    outcome = check(op, PENDING if op in (Operation.APPROVE, Operation.REJECT) else ACTIVE,
                    caller_is_admin=False)
    assert isinstance(outcome, Refused) and outcome.status == 403


def test_non_admin_messages() -> None:
    refused = Refused(403, "You are not allowed to reject a user")
    assert check("reject", PENDING, caller_is_admin=False) == refused
    assert check("ban", ACTIVE, caller_is_admin=False) == Refused(403, "403 Forbidden")


def test_admin_cannot_block_themselves() -> None:
    outcome = check("block", ACTIVE, caller_is_target=True)
    assert outcome == Refused(403, "403 Forbidden - The API initiating user cannot be blocked by the API")


def test_idempotent_no_ops_change_nothing() -> None:
    assert check("deactivate", DEACTIVATED) == Allowed(201, True, UserState.DEACTIVATED, changed=False)
    assert check("activate", ACTIVE) == Allowed(201, True, UserState.ACTIVE, changed=False)
    assert check("block", BANNED) == Allowed(201, True, UserState.BANNED, changed=False)
    assert check("unblock", ACTIVE) == Allowed(201, False, UserState.ACTIVE, changed=False)


def test_dormancy_period_is_configurable() -> None:
    outcome = check("deactivate", ACTIVE, dormant_days=180)
    assert isinstance(outcome, Refused) and "past 180 days" in outcome.message


def test_allowed_operations_for_the_tui() -> None:
    rows = {row.op: row for row in allowed_operations(BLOCKED)}
    assert {op for op, row in rows.items() if row.enabled} == {Operation.UNBLOCK}
    assert rows[Operation.BLOCK].reason == "already blocked"
    reason = rows[Operation.ACTIVATE].reason
    assert reason == "Error occurred. A blocked user must be unblocked to be activated"

    assert {r.op for r in allowed_operations(PENDING) if r.enabled} == {
        Operation.APPROVE, Operation.REJECT, Operation.UNBLOCK}  # block: already blocked? in GitLab
    assert {r.op for r in allowed_operations(DORMANT) if r.enabled} == {
        Operation.DEACTIVATE, Operation.BLOCK, Operation.BAN}
    assert {r.op for r in allowed_operations(LDAP) if r.enabled} == set()
    assert not any(r.enabled for r in allowed_operations(ACTIVE, caller_is_admin=False))


def test_every_state_and_operation_is_decided() -> None:
    for state in UserState:
        for internal in (False, True):
            for dormant in (False, True):
                account = Account(state, internal=internal, dormant=dormant)
                for op in Operation:
                    outcome = check(op, account)
                    if isinstance(outcome, Allowed):
                        assert outcome.status in (200, 201)
                        assert outcome.changed == (outcome.result is not state)
                    else:
                        assert outcome.status in (403, 409) and outcome.message


def test_account_from_api_state() -> None:
    assert Account.from_api("blocked_pending_approval").state is UserState.PENDING_APPROVAL
    assert Account.from_api("banned").blocked
    with pytest.raises(ValueError):
        Account.from_api("frozen")
    assert Operation.ACTIVATE.label == "reactivate"


def test_a_pending_user_is_not_called_blocked() -> None:
    """Deactivating or reactivating a sign-up pending approval is refused (GitLab counts it as blocked and
    answers "A blocked user cannot be deactivated"); the TUI's reason names the state the operator sees."""
    from labdeck.domain.moderation import PENDING_REASON

    rows = {row.op: row for row in allowed_operations(PENDING)}
    for op in (Operation.DEACTIVATE, Operation.ACTIVATE):
        assert not rows[op].enabled
        assert rows[op].reason == PENDING_REASON
        assert "pending approval" in PENDING_REASON and "blocked user" not in (rows[op].reason or "")
    # what the sandbox answers stays GitLab's own
    refused = check("deactivate", PENDING)
    assert isinstance(refused, Refused)
    assert refused.message == "Error occurred. A blocked user cannot be deactivated"
