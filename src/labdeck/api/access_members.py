"""The access review's Members tab (issue 36): who has access where, and how (`domain.access_members.Grant`).

GitLab's `/members/all` gives one membership per user, the highest, and never says where it comes from
(doc/api/members.md: "only its membership with the highest `access_level` is returned"), so the review
reads direct members instead and says where each grant comes from:
- a group scope reads the direct members (`GET /groups/:id/members`, `/projects/:id/members`) of the
  groups above its root (said at the root, "inherited from ..."), of its groups and of its projects, and of
  the groups its groups and projects are shared with (`shared_with_groups`: said where shared, "shared
  through ...", at the lower of the two levels);
- the instance (administrators) reads each user's direct memberships (`GET /users/:id/memberships`, whose
  sources are named by id: their paths come from the instance's group and project listings), and the
  projects' shares the same way; `user=` reads one user's alone.

Fan-out, cache, first rows and unreadable items as every review has them (`api/access_scope.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from labdeck.api import bindings as b
from labdeck.api.access_scope import FanOut, Item, OnRows, Place, Scope, Unreadable, fan_out, read_scope
from labdeck.api.client import ApiClient
from labdeck.api.models.members import Member
from labdeck.api.users import user_rows
from labdeck.domain.access_members import Grant, Kind, ancestors, owners_per_group, shared_level
from labdeck.domain.access_tokens import bot_kind


@dataclass
class MembersRead:
    """The review: every grant (in the scope's order, shares last), the items that could not be read, the
    scope, and the Owners each group has (`domain.access_members.owners_per_group`)."""

    grants: list[Grant]
    unreadable: list[Unreadable]
    scope: Scope
    items: int = 0
    owners: dict[str, int] = field(default_factory=dict)


def grant_of(member: Member, path: str, kind: Kind) -> Grant:
    """A direct member as a grant at `path`."""
    return Grant(member.id, member.username or str(member.id), path, kind, member.access_level or 0,
                 expires_at=member.expires_at, name=member.name or "", state=member.state or "active",
                 bot=bot_kind(member.username) is not None)


def shared_grants(places: Iterable[Place], members_of: dict[str, list[Grant]]) -> list[Grant]:
    """The grants the shares of `places` give: each member of a group a place is shared with, at the lower of
    their level there and the share's, ending at the earlier of the two dates."""
    out: list[Grant] = []
    for place in places:
        for share in place.shares:
            source = share.group_full_path or str(share.group_id)
            for member in members_of.get(source, ()):
                ends = [d for d in (member.expires_at, share.expires_at) if d is not None]
                out.append(Grant(member.user_id, member.username, place.path, place.kind,
                                 shared_level(member.access_level, share.group_access_level or 0), "shared",
                                 source, min(ends) if ends else None, member.name, member.state, member.bot))
    return out


class MembersReview:
    """Reads the Members tab of a group scope or of the instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def _direct(self, kind: Kind, path: str, refresh: bool) -> list[Member]:
        owned = b.owned("groups" if kind == "group" else "projects")
        return await owned.members.read(self.client, path, refresh=refresh)

    async def review(self, root: str | None, *, refresh: bool = False, user: str | None = None,
                     on_rows: OnRows[Grant] | None = None) -> MembersRead:
        """The grants of `root` (a group's full path) or of the instance (None); `user`: the instance's
        review reads that user's memberships only (a group's is filtered afterwards, `MemberFilter`)."""
        if root is None:
            return await self._instance(refresh=refresh, user=user, on_rows=on_rows)
        scope = await read_scope(self.client, root, refresh=refresh)
        members_of: dict[str, list[Grant]] = {}

        def direct(place: Place) -> Item[Grant]:
            async def read() -> list[Grant]:
                found = [grant_of(m, place.path, place.kind) for m in
                         await self._direct(place.kind, place.path, refresh)]
                members_of[place.path] = found
                return found
            return place.path, "members", read

        def inherited(ancestor: str) -> Item[Grant]:
            async def read() -> list[Grant]:
                members = await self._direct("group", ancestor, refresh)
                found = [grant_of(m, ancestor, "group") for m in members]
                return [replace(g, path=root, via="inherited", source=ancestor) for g in found]
            return ancestor, "members", read

        in_scope = {place.path for place in scope.places}
        sources = sorted({s.group_full_path or str(s.group_id) for p in scope.places for s in p.shares}
                         - in_scope)
        items = [*(inherited(a) for a in reversed(ancestors(root))), *(direct(p) for p in scope.places),
                 *(direct(Place("group", s)) for s in sources)]
        read = await fan_out(self.client, items, on_rows=_but(on_rows, sources))
        grants = [g for g in read.rows if g.path in in_scope or g.via != "direct"]
        shared = shared_grants(scope.places, members_of)
        if on_rows is not None and shared:
            on_rows(shared, read.items, read.items)
        return self._read([*grants, *shared], read, scope)

    def _read(self, grants: list[Grant], read: FanOut[Grant], scope: Scope) -> MembersRead:
        groups = [g.path for g in scope.groups]
        return MembersRead(grants, read.unreadable, scope, read.items, owners_per_group(grants, groups))

    async def _instance(self, *, refresh: bool, user: str | None,
                        on_rows: OnRows[Grant] | None) -> MembersRead:
        scope = await read_scope(self.client, None, refresh=refresh, shares=False)
        paths = {("Namespace", g.id): (g.path, "group") for g in scope.groups}
        paths.update({("Project", p.id): (p.path, "project") for p in scope.projects})
        params = {"username": user.strip().removeprefix("@")} if user else None
        people = await b.USERS.read(self.client, params=params, refresh=refresh, decode=user_rows())
        members_of: dict[str, list[Grant]] = {}

        def memberships(person_id: int, username: str, name: str, state: str, external: bool) -> Item[Grant]:
            async def read() -> list[Grant]:
                found = await b.USER_MEMBERSHIPS.read(self.client, person_id, refresh=refresh)
                grants = []
                for m in found:
                    path, kind = paths.get((m.source_type or "", m.source_id),
                                           (m.source_name or str(m.source_id), "group"))
                    grant = Grant(person_id, username, path, kind,  # type: ignore[arg-type]
                                  m.access_level or 0, name=name, state=state,
                                  bot=bot_kind(username) is not None, external=external)
                    grants.append(grant)
                    if kind == "group":
                        members_of.setdefault(path, []).append(grant)
                return grants
            return username, "memberships", read

        items = [memberships(p.id, p.username or str(p.id), p.name or "", p.state or "active",
                             bool(p.external)) for p in people]
        read = await fan_out(self.client, items, on_rows=on_rows)
        shared = shared_grants(scope.projects, members_of)
        if on_rows is not None and shared:
            on_rows(shared, read.items, read.items)
        return self._read([*read.rows, *shared], read, scope)


def _but(on_rows: OnRows[Grant] | None, sources: list[str]) -> OnRows[Grant] | None:
    """`on_rows` without the rows of the share sources outside the scope (read for their members only)."""
    if on_rows is None:
        return None
    outside = set(sources)

    def heard(rows: list[Grant], done: int, total: int) -> None:
        on_rows([g for g in rows if not (g.via == "direct" and g.path in outside)], done, total)
    return heard
