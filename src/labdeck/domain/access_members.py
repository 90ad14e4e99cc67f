"""Who has access where, as the access review shows it (issue 36): one `Grant` per membership that gives
access in a scope, how it gives it (`via`), the review's filters, and the count of Owners per group.

A grant is said once, where it is given:
- `direct`: a member of the group or project itself (GitLab's `GET /groups/:id/members`);
- `inherited`: a member of a group above the scope's root, said at the root ("inherited from acme"): inside
  the scope, a group's members reach its subgroups and projects without being said again (GitLab's
  inheritance, `doc/user/project/members/_index.md`);
- `shared`: a member of a group the group or project is shared with ("shared through opensource"), at the
  lower of their level in that group and the level the share gives
  (`doc/user/project/members/sharing_projects_groups.md`: "the maximum role ... is the lower of the two").

`effective(grants, path, ...)` gives what a user has at a place: the highest level of the grants at the
place and above it, as GitLab's `/members/all` keeps the highest; `owners_per_group` counts the Owners of
each group that way. Paths are full paths (`acme/platform`); a place's ancestors are its path's prefixes.
Pure rules: the day a question is asked about (`today`) is given.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date
from typing import Final, Literal

from labdeck.domain.access_levels import AccessLevel, AccessLevelError, parse_access_level

Via = Literal["direct", "inherited", "shared"]
Kind = Literal["group", "project"]
OWNER: Final = int(AccessLevel.OWNER)
# User states the review names (GitLab's `state`): anything but `active` is said.
BLOCKED_STATES: Final = frozenset({"blocked", "ldap_blocked", "banned", "blocked_pending_approval",
                                   "deactivated"})


def level_name(level: int | None) -> str:
    """An access level as the review's filters and JSON name it: `owner`, `maintainer`, `minimal_access`;
    a number GitLab knows and labdeck does not stays a number (`"45"`), None is empty."""
    if level is None:
        return ""
    try:
        return AccessLevel(level).name.lower()
    except ValueError:
        return str(level)


def level_named(text: str | int) -> int:
    """The level a filter names (`owner`, `Maintainer`, `40`); `AccessLevelError` for anything else."""
    return int(parse_access_level(text))


def ancestors(path: str) -> list[str]:
    """The paths above `path`, nearest first: `a/b/c` -> `a/b`, `a`."""
    parts = path.split("/")
    return ["/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


def shared_level(member_level: int, share_level: int) -> int:
    """What a member of a group a resource is shared with gets: the lower of the two."""
    return min(member_level, share_level)


@dataclass(frozen=True)
class Grant:
    """One membership giving `access_level` at `path` (a group or a project) to a user. `source`: the
    group inherited from or shared through (None for a direct membership). `state`, `bot`, `external`:
    the user's flags as far as the listing tells them."""

    user_id: int
    username: str
    path: str
    kind: Kind
    access_level: int
    via: Via = "direct"
    source: str | None = None
    expires_at: date | None = None
    name: str = ""
    state: str = "active"
    bot: bool = False
    external: bool = False

    @property
    def level(self) -> str:
        return level_name(self.access_level)

    @property
    def via_text(self) -> str:
        """`direct`, `inherited from acme`, `shared through opensource`."""
        if self.via == "inherited":
            return f"inherited from {self.source}"
        if self.via == "shared":
            return f"shared through {self.source}"
        return "direct"

    @property
    def blocked(self) -> bool:
        return self.state in BLOCKED_STATES

    @property
    def flags(self) -> tuple[str, ...]:
        """What the review says of the user beside the grant: `blocked` (or another state), `bot`,
        `external`."""
        found = [self.state] if self.state and self.state != "active" else []
        return (*found, *(["bot"] if self.bot else []), *(["external"] if self.external else []))


def expires_within(expires_at: date | None, today: date, days: int) -> bool:
    """A membership ending at most `days` days from `today` (today included; GitLab removes it at its
    date, and lists only the ones not yet ended). One that never ends does not."""
    return expires_at is not None and 0 <= (expires_at - today).days <= days


@dataclass(frozen=True)
class MemberFilter:
    """The review's filters; each None or empty is no filter. `level`: at least (`owner` is Owners,
    `maintainer` Maintainers and Owners) unless `exact`; `user`: username or name, case-insensitive,
    a leading `@` allowed; `expires_within`: days (see `expires_within`)."""

    level: int | None = None
    exact: bool = False
    user: str | None = None
    expires_within: int | None = None
    path: str | None = None  # the place or below it

    def matches(self, grant: Grant, today: date) -> bool:
        if self.level is not None and (grant.access_level != self.level if self.exact
                                       else grant.access_level < self.level):
            return False
        if self.user:
            wanted = self.user.strip().removeprefix("@").lower()
            if wanted not in (grant.username.lower(), grant.name.lower()):
                return False
        if self.path and not (grant.path == self.path or grant.path.startswith(self.path + "/")):
            return False
        return self.expires_within is None or expires_within(grant.expires_at, today, self.expires_within)


def parse_level_filter(text: str | None) -> int | None:
    """`--level owner` as a number (None for no filter); `ValueError` naming the levels otherwise."""
    if text is None or not text.strip():
        return None
    try:
        return level_named(text)
    except AccessLevelError as error:
        raise ValueError(str(error)) from None


def effective(grants: Iterable[Grant], path: str) -> dict[int, Grant]:
    """By user, the grant that gives them the most at `path`: the grants at `path` and at every group above
    it (inherited), the highest level kept; at equal levels the nearest (a direct membership over an
    inherited one), as GitLab's `/members/all` keeps one membership per user."""
    places = [path, *ancestors(path)]
    rank = {place: i for i, place in enumerate(places)}
    best: dict[int, Grant] = {}
    for grant in grants:
        if grant.path not in rank:
            continue
        held = best.get(grant.user_id)
        if held is None or (grant.access_level, -rank[grant.path]) > (held.access_level, -rank[held.path]):
            best[grant.user_id] = grant
    return best


def owners_per_group(grants: Iterable[Grant], groups: Iterable[str]) -> dict[str, int]:
    """How many users are Owners of each of `groups` (by path): directly, through a group above it, or
    through a share that gives Owner, counted once each (`effective`)."""
    held = list(grants)
    return {group: sum(1 for g in effective(held, group).values() if g.access_level >= OWNER)
            for group in groups}
