"""Models of user moderation: a user as an administrator sees it, with its moderation condition, and the
result of one moderation request (for single operations and for each user of a bulk job).

The condition comes from the fields GitLab sends (`state`, `user_type`, `last_activity_on`) and feeds the
domain rules (`labdeck.domain.moderation`), the same rules the sandbox answers with.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Final

from labdeck.api.models.users import User
from labdeck.domain.moderation import (
    DEFAULT_DORMANT_DAYS,
    Account,
    Allowed,
    Availability,
    Operation,
    UserState,
    allowed_operations,
    check,
    is_dormant,
    is_internal_type,
)


class Condition(StrEnum):
    """The conditions the users view filters by (one account can be in `active` and `dormant`)."""

    ACTIVE = "active"
    PENDING = "pending approval"
    BLOCKED = "blocked"
    BANNED = "banned"
    DEACTIVATED = "deactivated"
    DORMANT = "dormant"


_STATE_LABELS: Final = {
    UserState.ACTIVE: "active",
    UserState.PENDING_APPROVAL: "pending approval",
    UserState.BLOCKED: "blocked",
    UserState.LDAP_BLOCKED: "blocked (directory sync)",
    UserState.DEACTIVATED: "deactivated",
    UserState.BANNED: "banned",
}


class ModeratedUser(User):
    """A user from the administrators' listing (`GET /users`, `GET /users/:id`)."""

    user_type: str | None = None
    using_license_seat: bool | None = None

    @property
    def known_state(self) -> UserState | None:
        """The GitLab state, or None when the server sent one labdeck does not know."""
        try:
            return UserState(self.state or "")
        except ValueError:
            return None

    @property
    def internal(self) -> bool:
        return is_internal_type(self.user_type)

    def is_dormant(self, today: date, dormant_days: int = DEFAULT_DORMANT_DAYS) -> bool:
        """GitLab's dormant users (`domain.moderation.is_dormant`): no activity for `dormant_days` days, or
        none at all on an account created at least 7 days ago."""
        return is_dormant(self.state or "", user_type=self.user_type, last_activity_on=self.last_activity_on,
                          created_at=self.created_at, today=today, period_days=dormant_days)

    def account(self, today: date, dormant_days: int = DEFAULT_DORMANT_DAYS) -> Account | None:
        """The domain view of this account (None for an unknown state)."""
        state = self.known_state
        if state is None:
            return None
        return Account(state, internal=self.internal, dormant=self.is_dormant(today, dormant_days))

    def conditions(self, today: date, dormant_days: int = DEFAULT_DORMANT_DAYS) -> set[Condition]:
        state = self.known_state
        found: set[Condition] = set()
        if state is UserState.ACTIVE:
            found.add(Condition.ACTIVE)
            if self.is_dormant(today, dormant_days):
                found.add(Condition.DORMANT)
        elif state is UserState.PENDING_APPROVAL:
            found.add(Condition.PENDING)
        elif state in (UserState.BLOCKED, UserState.LDAP_BLOCKED):
            found.add(Condition.BLOCKED)
        elif state is UserState.BANNED:
            found.add(Condition.BANNED)
        elif state is UserState.DEACTIVATED:
            found.add(Condition.DEACTIVATED)
        return found

    def state_label(self, today: date, dormant_days: int = DEFAULT_DORMANT_DAYS) -> str:
        """`active`, `active, dormant`, `blocked (directory sync)`, ... (the raw state when unknown)."""
        state = self.known_state
        if state is None:
            return self.state or "unknown"
        label = _STATE_LABELS[state]
        if self.is_dormant(today, dormant_days):
            label += ", dormant"
        if self.internal:
            label += ", internal"
        return label

    def operations(self, today: date, *, caller_is_admin: bool = True, caller_id: int | None = None,
                   dormant_days: int = DEFAULT_DORMANT_DAYS) -> list[Availability]:
        """Every moderation operation with whether it is offered and, when not, why (empty for an
        unknown state: nothing is offered)."""
        account = self.account(today, dormant_days)
        if account is None:
            return []
        return allowed_operations(account, caller_is_admin=caller_is_admin,
                                  caller_is_target=caller_id == self.id, dormant_days=dormant_days)

    def after(self, op: Operation | str, today: date,
              dormant_days: int = DEFAULT_DORMANT_DAYS) -> ModeratedUser | None:
        """This account as a successful `op` leaves it, by the domain's rules (`moderation.check`, the rules
        the sandbox answers with): GitLab answers a moderation with `true` or a message, never with the
        user (`lib/api/users.rb`: block, deactivate, ban `true`; approve `{"message":"Success"}`), so a list
        shows the new state without reading it. None when `op` removes the account (reject); the account
        as it was when the rules cannot say (an unknown state, an operation they would refuse): the
        re-read that follows shows what the server did."""
        account = self.account(today, dormant_days)
        outcome = None if account is None else check(op, account, dormant_days=dormant_days)
        if not isinstance(outcome, Allowed):
            return self
        if outcome.result is None:
            return None
        return self.model_copy(update={"state": outcome.result.value})


@dataclass(frozen=True, slots=True)
class ModerationResult:
    """What one moderation request did: `ok` with the server's body, or refused with its status and
    message (`status` is None for a network failure)."""

    op: str
    user_id: int
    username: str | None
    ok: bool
    status: int | None
    message: str
    changed: bool = True

    @property
    def summary(self) -> str:
        who = self.username or f"user {self.user_id}"
        if self.ok:
            return f"{self.op} {who}: done" if self.changed else f"{self.op} {who}: nothing to change"
        code = f"{self.status} " if self.status is not None else ""
        return f"{self.op} {who}: refused, {code}{self.message}"
