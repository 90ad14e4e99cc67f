"""Access tokens (personal, group and project) as the access review reads them: a token's state, the days
left before it expires, and the review's questions (never expires, expires within N days, unused for N
days); which kind of token a bot's username says it is; and how the undo journal treats a revoke and a
rotation (neither has an inverse).

GitLab's rules (`app/models/personal_access_token.rb`, `app/models/concerns/expirable.rb`): a token is
active when it is neither revoked nor expired; it expires at midnight UTC of its `expires_at` date
(`expires_at <= Time.current`), so a token whose date is today is expired already; GitLab keeps listing
expired and revoked tokens (`active: false`). A group or project access token is a personal access token
of a bot user GitLab makes for it, named `<group|project>_<id>_bot_<hex>`
(`app/services/resource_access_tokens/create_service.rb`).

Pure rules over dates: every function takes the day (`today`) or the time (`now`) it is asked about.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Final, Literal

from labdeck.domain.undo_rules import Change, Operation, UndoRule

TokenState = Literal["active", "expired", "revoked"]
TOKEN_STATES: Final[tuple[TokenState, ...]] = ("active", "expired", "revoked")
TokenKind = Literal["personal", "group", "project"]
DEFAULT_EXPIRING_DAYS: Final = 30  # "expiring within N days" when N is not given (the default)
DEFAULT_UNUSED_DAYS: Final = 90
_BOT: Final = re.compile(r"^(group|project)_[0-9]+_bot(?:_[0-9a-f]+)?$")

REVOKE_NO_INVERSE: Final = "a revoked token cannot be made active again: GitLab has no undo for a revoke"
ROTATE_NO_INVERSE: Final = ("the old token is revoked by the rotation and cannot be made active again; "
                            "the new value was shown once and is kept nowhere")


def days_left(expires_at: date | None, today: date) -> int | None:
    """Days from `today` to the expiry date (0 or less: expired), None for a token that never expires."""
    return None if expires_at is None else (expires_at - today).days


def is_expired(expires_at: date | None, today: date) -> bool:
    """Expired at midnight UTC of its date: a token whose `expires_at` is today is expired (GitLab's
    `expires_at <= Time.current`)."""
    left = days_left(expires_at, today)
    return left is not None and left <= 0


def token_state(revoked: bool | None, expires_at: date | None, today: date) -> TokenState:
    """`revoked` first (a revoked token stays revoked, whatever its date), then `expired`, else `active`:
    what GitLab's `active` says, with the reason it is not."""
    if revoked:
        return "revoked"
    return "expired" if is_expired(expires_at, today) else "active"


def never_expires(expires_at: date | None) -> bool:
    return expires_at is None


def expires_within(expires_at: date | None, today: date, days: int = DEFAULT_EXPIRING_DAYS) -> bool:
    """Not expired yet, and expires at most `days` days from `today` (a token never expiring does not)."""
    left = days_left(expires_at, today)
    return left is not None and 0 < left <= days


def unused_for(last_used_at: datetime | None, created_at: datetime | None, now: datetime,
               days: int = DEFAULT_UNUSED_DAYS) -> bool:
    """Not used for at least `days` days: last used that long ago, or never used and created that long ago
    (a token made yesterday and not used yet is not unused for 90 days). A token with neither time is
    unknown, not unused."""
    since = last_used_at or created_at
    return since is not None and now - since >= timedelta(days=days)


def bot_kind(username: str | None) -> Literal["group", "project"] | None:
    """The kind of access token whose bot user this is, by GitLab's bot usernames; None for a person."""
    found = _BOT.match(username or "")
    return None if found is None else ("group" if found.group(1) == "group" else "project")


@dataclass(frozen=True)
class TokenRow:
    """One token as the review shows it: `kind` (personal, group, project), `owner` (a personal token's
    user, `@alice`; a group's or project's token's group or project path), never its value. `path`: the
    group or project of a resource token (its actions need it), None for a personal one."""

    id: int
    kind: TokenKind
    name: str
    owner: str
    scopes: tuple[str, ...] = ()
    created_at: datetime | None = None
    last_used_at: datetime | None = None
    expires_at: date | None = None
    revoked: bool = False
    access_level: int | None = None
    path: str | None = None
    user_id: int | None = None

    def state(self, today: date) -> TokenState:
        return token_state(self.revoked, self.expires_at, today)

    def days_left(self, today: date) -> int | None:
        return days_left(self.expires_at, today)


@dataclass(frozen=True)
class TokenFilter:
    """The review's filters (None: no filter): `state` (`active`, `expired`, `revoked`), `expires_within`
    days (not expired yet), `unused_for` days, `never_expires`, `kind`, `owner` (username or path, any
    case, a leading `@` allowed), `name` (in the name, any case)."""

    state: TokenState | None = None
    expires_within: int | None = None
    unused_for: int | None = None
    never_expires: bool = False
    kind: TokenKind | None = None
    owner: str | None = None
    name: str | None = None

    def matches(self, row: TokenRow, now: datetime) -> bool:
        today = now.date()
        if self.state is not None and row.state(today) != self.state:
            return False
        if self.expires_within is not None and not expires_within(row.expires_at, today, self.expires_within):
            return False
        if self.unused_for is not None and not unused_for(row.last_used_at, row.created_at, now,
                                                           self.unused_for):
            return False
        if self.never_expires and not never_expires(row.expires_at):
            return False
        if self.kind is not None and row.kind != self.kind:
            return False
        if self.owner and self.owner.strip().removeprefix("@").lower() != row.owner.removeprefix("@").lower():
            return False
        return not self.name or self.name.lower() in row.name.lower()


class TokenChange(UndoRule):
    """A token's revoke (`DELETE`) or rotation (`POST .../rotate`), personal, group or project: journalled
    without an inverse, each saying why. The rotation's answer (which holds the new token) is never read
    by the journal: the operation names its target from the request alone."""

    def operation(self, change: Change) -> Operation:
        if change.method == "DELETE":
            return Operation("token.revoke", no_inverse=REVOKE_NO_INVERSE, owner=change.owner)
        return Operation("token.rotate", no_inverse=ROTATE_NO_INVERSE, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> None:
        return None


TOKEN_UNDO: Final = TokenChange()
