"""The access review's filter lines (the `:access` tabs' filter fields, issue 36): words separated by spaces,
each one condition, all of them applying. A word is `name:value` or a bare word the tab knows.

- Members: `owner` (or any level's name, `level:maintainer`): that level or higher; `@alice` or
  `user:alice`; `expires:7` (a membership ending within 7 days); `path:fleet/core` (there or below).
- Variables: `findings`; `losing` (no job gets it); `instance`, `group`, `project` (where it is defined);
  `key:DEPLOY_*` or a bare word (the key, any case, `*` for any text); `path:fleet/edge`.
- Tokens: `active`, `expired`, `revoked` (`state:`); `expiring` (within 30 days) or `expires:N`; `unused`
  (for 90 days) or `unused:N`; `never` (never expires); `personal`, `group`, `project`; `@alice` or
  `owner:fleet/core`; a bare word: in the name.

`parse_*` give the filter, or raise `FilterError` naming the word it cannot read. Pure: nothing is read.
"""

from __future__ import annotations

from typing import Final

from labdeck.domain.access_levels import AccessLevelError
from labdeck.domain.access_members import MemberFilter, level_named
from labdeck.domain.access_tokens import (
    DEFAULT_EXPIRING_DAYS,
    DEFAULT_UNUSED_DAYS,
    TOKEN_STATES,
    TokenFilter,
    TokenKind,
    TokenState,
)
from labdeck.domain.digits import parse_digits
from labdeck.domain.variable_findings import VariableFilter

TOKEN_KINDS: Final[tuple[TokenKind, ...]] = ("personal", "group", "project")
VARIABLE_LEVELS: Final = ("instance", "group", "project")


class FilterError(ValueError):
    """A word of a filter line the tab cannot read (its message names it)."""


def _words(text: str) -> list[tuple[str, str]]:
    """`("name", "value")` per word; a bare word is `("", word)`."""
    out = []
    for word in text.split():
        name, colon, value = word.partition(":")
        out.append((name.lower(), value) if colon else ("", word))
    return out


def _days(word: str, value: str) -> int:
    number = parse_digits(value)
    if number is None:
        raise FilterError(f"{word}: a number of days (0-9)")
    return number


def parse_member_filter(text: str) -> MemberFilter:
    level: int | None = None
    user = path = None
    within: int | None = None
    for name, value in _words(text):
        word = f"{name}:{value}" if name else value
        if name == "user" or (not name and value.startswith("@")):
            user = value.removeprefix("@")
        elif name == "expires":
            within = _days(word, value)
        elif name == "path":
            path = value.strip("/")
        elif name in ("level", ""):
            try:
                level = level_named(value)
            except AccessLevelError:
                raise FilterError(f"{word}: not a filter (owner, @user, expires:N, path:P)") from None
        else:
            raise FilterError(f"{word}: not a filter (owner, @user, expires:N, path:P)")
    return MemberFilter(level=level, user=user, expires_within=within, path=path)


def parse_variable_filter(text: str) -> VariableFilter:
    findings = losing = False
    key = level = path = None
    for name, value in _words(text):
        lowered = value.lower()
        if not name and lowered == "findings":
            findings = True
        elif not name and lowered == "losing":
            losing = True
        elif not name and lowered in VARIABLE_LEVELS:
            level = lowered
        elif name == "path":
            path = value.strip("/")
        elif name in ("key", ""):
            key = value
        else:
            raise FilterError(f"{name}:{value}: not a filter (findings, losing, group, key:K, path:P)")
    return VariableFilter(findings_only=findings, key=key, level=level, path=path, losing=losing)


def parse_token_filter(text: str) -> TokenFilter:
    state: TokenState | None = None
    kind: TokenKind | None = None
    within = unused = None
    never = False
    owner = name_part = None
    for name, value in _words(text):
        lowered = value.lower()
        if name == "state" or (not name and lowered in TOKEN_STATES):
            if lowered not in TOKEN_STATES:
                raise FilterError(f"state:{value}: active, expired or revoked")
            state = next(s for s in TOKEN_STATES if s == lowered)
        elif not name and lowered in TOKEN_KINDS:
            kind = next(k for k in TOKEN_KINDS if k == lowered)
        elif not name and lowered == "expiring":
            within = DEFAULT_EXPIRING_DAYS
        elif name == "expires":
            within = _days(f"expires:{value}", value)
        elif not name and lowered == "unused":
            unused = DEFAULT_UNUSED_DAYS
        elif name == "unused":
            unused = _days(f"unused:{value}", value)
        elif not name and lowered == "never":
            never = True
        elif name == "owner" or (not name and value.startswith("@")):
            owner = value
        elif not name:
            name_part = value
        else:
            raise FilterError(f"{name}:{value}: not a filter (expired, expiring, unused:N, never, @user)")
    return TokenFilter(state=state, expires_within=within, unused_for=unused, never_expires=never, kind=kind,
                       owner=owner, name=name_part)
