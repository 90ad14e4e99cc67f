"""User moderation for administrators: `POST /users/:id/<op>` for approve, reject, deactivate, activate
(reactivate), block, unblock, ban and unban.

Every decision comes from `labdeck.domain.moderation.check`, the same rules the TUI uses to offer
operations, so the two agree by construction. This module only finds the account, describes its condition
(state, internal, dormant) and applies the outcome. Each answered operation is recorded in
`store.areas["moderation"]` (a `ModerationLog`), which tests and the demo can inspect.

Order of checks, as in GitLab's `lib/api/users.rb`: approve and reject look the user up first (404) and
let the service refuse a non-administrator (403 with its own message); the other six require an
administrator first (403 `403 Forbidden`), then look the user up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.domain.moderation import Account, Allowed, Operation, UserState, check, is_internal_type
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response
from labdeck.sandbox.store import DORMANT_DAYS, Store, User

AREA: Final = "moderation"
# approve and reject find the user before the service checks the caller.
_LOOKUP_FIRST: Final = frozenset({Operation.APPROVE, Operation.REJECT})


@dataclass(frozen=True, slots=True)
class ModerationEvent:
    """One answered moderation request."""

    at: datetime
    actor_id: int
    user_id: int
    op: str
    status: int
    state_before: str
    state_after: str | None


@dataclass
class ModerationLog:
    """Every moderation request the sandbox answered (successes, no-ops and refusals), oldest first."""

    events: list[ModerationEvent] = field(default_factory=list)


def log_of(store: Store) -> ModerationLog:
    return store.area(AREA, ModerationLog)


def account_of(store: Store, user: User) -> Account:
    """The moderation condition of a stored user."""
    return Account(UserState(user.state), internal=is_internal_type(user.user_type),
                   dormant=store.is_dormant(user))


def _remove(store: Store, user: User) -> None:
    """Reject deletes the account, with its tokens and memberships."""
    store.users.pop(user.id, None)
    for value in [v for v, t in store.tokens.items() if t.user_id == user.id]:
        del store.tokens[value]
    for table in (store.group_members, store.project_members):
        for members in table.values():
            members.pop(user.id, None)


def _target(ctx: Ctx) -> User:
    ident = ctx.path("id")
    number = parse_digits(ident)
    if number is None:  # GitLab's route requirement `id: /[0-9]*/`: no route matches
        raise SandboxError(404, {"error": "404 Not Found"})
    user = ctx.store.users.get(number)
    if user is None or (user.state == "banned" and not ctx.is_admin):
        raise SandboxError.not_found("User")
    return user


def _handler(op: Operation) -> Any:
    async def moderate(ctx: Ctx) -> Response:
        caller = ctx.require_user()
        if op not in _LOOKUP_FIRST:
            ctx.require_admin()
        user = _target(ctx)
        before = user.state
        outcome = check(op, account_of(ctx.store, user), caller_is_admin=caller.is_admin,
                        caller_is_target=caller.id == user.id, dormant_days=DORMANT_DAYS)
        after: str | None = before
        if isinstance(outcome, Allowed) and outcome.changed:
            if outcome.result is None:
                _remove(ctx.store, user)
                after = None
            else:
                user.state = outcome.result.value
                after = user.state
            ctx.store.touch()
        log_of(ctx.store).events.append(ModerationEvent(ctx.store.now(), caller.id, user.id, op.value,
                                                        outcome.status, before, after))
        return json_response(outcome.body, outcome.status)

    moderate.__name__ = f"moderate_{op.value}"
    moderate.__doc__ = f"POST /users/:id/{op.value}"
    return moderate


def seed(store: Store, ctx: Any) -> None:
    """No extra accounts (the core seeds one user in every condition); start an empty log."""
    store.areas[AREA] = ModerationLog()


routes: list[Route] = [
    Route(f"/users/{{id}}/{op.value}", endpoint(_handler(op)), methods=["POST"]) for op in Operation
]
