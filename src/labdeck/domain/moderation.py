"""User account moderation: which operation an administrator may apply to an account, and what follows.

Contract document 2 ("User account moderation") fixes the required conditions and the 403/409 refusals; real
GitLab (`lib/api/users.rb`, `app/services/users/*`) fills in what GitLab's API leaves out: the messages,
the idempotent cases and the resulting states. The sandbox calls `check` to answer
`POST /users/:id/<op>`; the TUI calls `allowed_operations` to offer only what will work and to say why the
rest is disabled.

Account conditions: GitLab's `state` (`active`, `blocked_pending_approval` = pending approval, `blocked`
= blocked by an administrator, `ldap_blocked` = blocked by directory synchronisation, `deactivated`,
`banned`) plus two flags: `internal` (bots, ghost and other internal users) and `dormant` (an active account
without activity for the dormancy period, so it can be deactivated). GitLab counts pending approval and
banned accounts as blocked too (`user.blocked?`), which is why deactivate and reactivate refuse them.

Operations and their answers on success: approve 201 `{"message": "Success"}`; reject 200
`{"message": "Success"}` and the account is removed; deactivate, activate (reactivate), block, unblock,
ban, unban 201 `true`. A no-op (deactivating a deactivated account, activating an active one, blocking a
blocked one) answers like a success and changes nothing, as in GitLab.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from enum import StrEnum
from typing import Any, Final


class UserState(StrEnum):
    ACTIVE = "active"
    PENDING_APPROVAL = "blocked_pending_approval"
    BLOCKED = "blocked"
    LDAP_BLOCKED = "ldap_blocked"
    DEACTIVATED = "deactivated"
    BANNED = "banned"


class Operation(StrEnum):
    """Moderation operations; the value is the path segment (`POST /users/:id/<value>`)."""

    APPROVE = "approve"
    REJECT = "reject"
    DEACTIVATE = "deactivate"
    ACTIVATE = "activate"  # "reactivate" in GitLab's API
    BLOCK = "block"
    UNBLOCK = "unblock"
    BAN = "ban"
    UNBAN = "unban"

    @property
    def label(self) -> str:
        return "reactivate" if self is Operation.ACTIVATE else self.value


# States GitLab's `user.blocked?` is true for.
_BLOCKED_LIKE: Final = frozenset({UserState.BLOCKED, UserState.LDAP_BLOCKED, UserState.PENDING_APPROVAL,
                                  UserState.BANNED})
DEFAULT_DORMANT_DAYS: Final = 90
# GitLab's user types that are not internal (`User::NON_INTERNAL_USER_TYPES`); every other type (ghost,
# support_bot, alert_bot, ...) is an internal user.
NON_INTERNAL_TYPES: Final = frozenset({"human", "project_bot", "service_user", "service_account"})


def is_internal_type(user_type: str | None) -> bool:
    """Whether a user of this `user_type` is an internal (system) user; an unknown type counts as human."""
    return user_type is not None and user_type not in NON_INTERNAL_TYPES


# GitLab's dormant users (`app/models/user.rb`): the `dormant` scope (an active human or service user whose
# `last_activity_on` is on or before `deactivate_dormant_users_period` days ago) and the `with_no_activity`
# scope (an active human or service user with no activity at all, created at least `MINIMUM_DAYS_CREATED`
# days ago): the accounts its dormant-user deactivation acts on. Someone who signed up yesterday and has not
# signed in yet is not dormant.
MINIMUM_DAYS_CREATED: Final = 7
DORMANT_USER_TYPES: Final = frozenset({"human", "service_user"})  # the scopes' `human_or_service_user`


def is_dormant(state: str, *, user_type: str | None, last_activity_on: date | None,
               created_at: datetime | None, today: date, period_days: int = DEFAULT_DORMANT_DAYS) -> bool:
    """Whether GitLab counts this account as dormant on `today` (see `MINIMUM_DAYS_CREATED`). `user_type`
    None (an instance that does not send it) is a human; `created_at` None with no activity: not dormant
    (unknown). Dates are compared as GitLab's SQL does: `created_at <= (today - 7 days)` at midnight UTC."""
    if state != UserState.ACTIVE or (user_type or "human") not in DORMANT_USER_TYPES:
        return False
    if last_activity_on is not None:
        return last_activity_on <= today - timedelta(days=period_days)
    if created_at is None:
        return False
    created = created_at if created_at.tzinfo is not None else created_at.replace(tzinfo=UTC)
    return created <= datetime.combine(today - timedelta(days=MINIMUM_DAYS_CREATED), time.min, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Account:
    """The moderation-relevant condition of a user account."""

    state: UserState
    internal: bool = False
    dormant: bool = False

    @classmethod
    def from_api(cls, state: str, *, internal: bool = False, dormant: bool = False) -> Account:
        """From a GitLab `state` string; raises `ValueError` for an unknown state."""
        return cls(UserState(state), internal=internal, dormant=dormant)

    @property
    def blocked(self) -> bool:
        """GitLab's `user.blocked?`: blocked, blocked by directory sync, pending approval or banned."""
        return self.state in _BLOCKED_LIKE


@dataclass(frozen=True, slots=True)
class Allowed:
    """The operation succeeds: answer `status` with JSON `body`; the account is then `result` (`None` when
    it is removed, after reject). `changed` is False for GitLab's idempotent no-ops."""

    status: int
    body: Any
    result: UserState | None
    changed: bool = True


@dataclass(frozen=True, slots=True)
class Refused:
    """The operation is refused: answer `status` with `{"message": message}`."""

    status: int
    message: str

    @property
    def body(self) -> dict[str, str]:
        return {"message": self.message}


Outcome = Allowed | Refused

_SUCCESS_MESSAGE: Final = {"message": "Success"}
_FORBIDDEN: Final = "403 Forbidden"


def _forbidden(reason: str) -> Refused:
    """GitLab's `forbidden!(reason)`: the message carries the status prefix."""
    return Refused(403, f"{_FORBIDDEN} - {reason}")


def _done(account: Account, result: UserState) -> Allowed:
    return Allowed(201, True, result, changed=result is not account.state)


def check(op: Operation | str, account: Account, *, caller_is_admin: bool = True,
          caller_is_target: bool = False, dormant_days: int = DEFAULT_DORMANT_DAYS) -> Outcome:
    """Decide `op` on `account` for a caller. Every moderation endpoint needs an administrator."""
    op = Operation(op)
    state = account.state
    if op is Operation.APPROVE:
        if not caller_is_admin:
            return Refused(403, "You are not allowed to approve a user")
        if state in (UserState.BLOCKED, UserState.LDAP_BLOCKED):
            return Refused(403, "The user you are trying to approve is blocked and must be unblocked first")
        if state is not UserState.PENDING_APPROVAL:
            return Refused(409, "The user you are trying to approve is not pending approval")
        return Allowed(201, dict(_SUCCESS_MESSAGE), UserState.ACTIVE)

    if op is Operation.REJECT:
        if not caller_is_admin:
            return Refused(403, "You are not allowed to reject a user")
        if state is not UserState.PENDING_APPROVAL:
            return Refused(409, "User does not have a pending request")
        return Allowed(200, dict(_SUCCESS_MESSAGE), None)

    if not caller_is_admin:
        return Refused(403, _FORBIDDEN)

    if op is Operation.DEACTIVATE:
        if state is UserState.DEACTIVATED:
            return Allowed(201, True, state, changed=False)
        if account.blocked:
            return Refused(403, "Error occurred. A blocked user cannot be deactivated")
        if account.internal:
            return Refused(403, "Internal users cannot be deactivated")
        if not account.dormant:
            return Refused(403, f"The user you are trying to deactivate has been active in the past "
                                f"{dormant_days} days and cannot be deactivated")
        return _done(account, UserState.DEACTIVATED)

    if op is Operation.ACTIVATE:
        if account.blocked:
            return Refused(403, "Error occurred. A blocked user must be unblocked to be activated")
        return _done(account, UserState.ACTIVE)

    if op is Operation.BLOCK:
        if state is UserState.LDAP_BLOCKED:
            return _forbidden("LDAP blocked users cannot be modified by the API")
        if caller_is_target:
            return _forbidden("The API initiating user cannot be blocked by the API")
        if account.blocked:
            return Allowed(201, True, state, changed=False)
        if account.internal:
            return Refused(403, "An internal user cannot be blocked")
        return _done(account, UserState.BLOCKED)

    if op is Operation.UNBLOCK:
        if state is UserState.LDAP_BLOCKED:
            return _forbidden("LDAP blocked users cannot be unblocked by the API")
        if state is UserState.DEACTIVATED:
            return _forbidden("Deactivated users cannot be unblocked by the API")
        if state is UserState.ACTIVE:
            # GitLab answers 201 with `false`: the activate transition does not apply to an active user.
            return Allowed(201, False, state, changed=False)
        return _done(account, UserState.ACTIVE)

    if op is Operation.BAN:
        if state is not UserState.ACTIVE:
            return Refused(403, f"You cannot ban {state.value} users.")
        return _done(account, UserState.BANNED)

    # Operation.UNBAN
    if state is not UserState.BANNED:
        return Refused(403, f"You cannot unban {state.value} users.")
    return _done(account, UserState.ACTIVE)


@dataclass(frozen=True, slots=True)
class Availability:
    """One row of `allowed_operations`: whether the TUI should enable `op`, and why not when it is not."""

    op: Operation
    enabled: bool
    reason: str | None
    outcome: Outcome


_NO_OP_REASON: Final = {
    Operation.DEACTIVATE: "already deactivated",
    Operation.ACTIVATE: "already active",
    Operation.BLOCK: "already blocked",
    Operation.UNBLOCK: "not blocked",
}


# Why a sign-up pending approval cannot be deactivated or reactivated, in place of GitLab's answer (it counts
# a pending account as blocked: "A blocked user cannot be deactivated"), which names a state the operator
# does not see in the list.
PENDING_REASON: Final = ("the user is pending approval: approve or reject the sign-up first "
                         "(GitLab counts a pending user as blocked)")


# What labdeck refuses on the signed-in account although GitLab allows some of it (ban, deactivate): each
# ends the session with a bare 401 and nobody but another administrator can undo it.
SELF_LOCKOUT: Final = frozenset({Operation.BAN, Operation.BLOCK, Operation.DEACTIVATE, Operation.REJECT})
SELF_LOCKOUT_REASON: Final = "this is your own account; you would be locked out"


def self_lockout(op: Operation | str, *, caller_is_target: bool) -> str | None:
    """Why labdeck refuses `op` on the caller's own account (None when it does not): a client rule, on top
    of what the server decides in `check`."""
    return SELF_LOCKOUT_REASON if caller_is_target and Operation(op) in SELF_LOCKOUT else None


def allowed_operations(account: Account, *, caller_is_admin: bool = True, caller_is_target: bool = False,
                       dormant_days: int = DEFAULT_DORMANT_DAYS) -> list[Availability]:
    """Every operation for `account`, enabled only when it would succeed and change something, and would
    not lock the caller out of their own account (`self_lockout`).

    A refused operation carries the server's message as its reason; a no-op carries a short reason such as
    `already blocked`.
    """
    rows = []
    for op in Operation:
        outcome = check(op, account, caller_is_admin=caller_is_admin, caller_is_target=caller_is_target,
                        dormant_days=dormant_days)
        lockout = self_lockout(op, caller_is_target=caller_is_target)
        if lockout is not None:
            rows.append(Availability(op, False, lockout, outcome))
        elif isinstance(outcome, Refused) and account.state is UserState.PENDING_APPROVAL \
                and op in (Operation.DEACTIVATE, Operation.ACTIVATE):
            rows.append(Availability(op, False, PENDING_REASON, outcome))
        elif isinstance(outcome, Refused):
            rows.append(Availability(op, False, outcome.message, outcome))
        elif not outcome.changed:
            rows.append(Availability(op, False, _NO_OP_REASON.get(op, "nothing to change"), outcome))
        else:
            rows.append(Availability(op, True, None, outcome))
    return rows
