"""Billable members of a top-level group (GitLab's API docs, rules 1 to 4): everyone with a membership in
the group's hierarchy (subgroups and projects included, bots left out), searched by name, username or
email, in the eight sorts; the direct memberships of one of them; and removal from the whole hierarchy."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.access_levels import AccessLevel
from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, error, iso, paginate
from labdeck.sandbox.routes.groups.groups import find_group, require_level
from labdeck.sandbox.routes.groups.members import is_last_owner, overrides
from labdeck.sandbox.shapes import user_basic
from labdeck.sandbox.store import Group, Member, Store, User

SORTS = ("access_level_asc", "access_level_desc", "last_joined", "name_asc", "name_desc", "oldest_joined",
         "oldest_sign_in", "recent_sign_in")
TOP_LEVEL_ONLY = "Billable Members endpoint is only available for top-level groups"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
# One membership: (kind, source id, member).
Membership = tuple[str, int, Member]


def _top_group(ctx: Ctx) -> Group:
    group = find_group(ctx)
    require_level(ctx, group, 50)
    if group.parent_id is not None:
        raise error(400, f"400 Bad request - {TOP_LEVEL_ONLY}")
    return group


def memberships(store: Store, group: Group) -> dict[int, list[Membership]]:
    """Direct memberships in the hierarchy of `group`, by user id."""
    out: dict[int, list[Membership]] = {}
    groups = [group.id, *store.descendants(group.id)]
    by_namespace = store.projects_by_namespace()
    for gid in groups:
        for uid, member in store.group_members.get(gid, {}).items():
            out.setdefault(uid, []).append(("group", gid, member))
        for pid in by_namespace.get(("group", gid), []):
            for uid, member in store.project_members.get(pid, {}).items():
                out.setdefault(uid, []).append(("project", pid, member))
    return out


def _billable(store: Store, group: Group) -> list[tuple[User, list[Membership]]]:
    rows = []
    for uid, found in memberships(store, group).items():
        user = store.users.get(uid)
        if user is not None and not user.bot:
            rows.append((user, found))
    return rows


_SORT_KEYS: dict[str, tuple[Callable[[tuple[User, list[Membership]]], Any], bool]] = {
    "access_level_asc": (lambda r: (max(m.access_level for _, _, m in r[1]), r[0].id), False),
    "access_level_desc": (lambda r: (max(m.access_level for _, _, m in r[1]), -r[0].id), True),
    "last_joined": (lambda r: (max(m.created_at for _, _, m in r[1]), r[0].id), True),
    "oldest_joined": (lambda r: (min(m.created_at for _, _, m in r[1]), r[0].id), False),
    "name_asc": (lambda r: (r[0].name.lower(), r[0].id), False),
    "name_desc": (lambda r: (r[0].name.lower(), r[0].id), True),
    "oldest_sign_in": (lambda r: (r[0].last_sign_in_at or _EPOCH, r[0].id), False),
    "recent_sign_in": (lambda r: (r[0].last_sign_in_at or _EPOCH, r[0].id), True),
}


async def list_billable(ctx: Ctx) -> Any:
    group = _top_group(ctx)
    store, p = ctx.store, ctx.params
    sort = p.choice("sort", SORTS)
    search = (p.str("search") or "").lower()

    def build() -> list[tuple[User, list[Membership]]]:
        rows = _billable(store, group)
        if search:
            rows = [r for r in rows if search in r[0].name.lower() or search in r[0].username.lower()
                    or search == r[0].email.lower()]
        if sort is None:
            return sorted(rows, key=lambda r: r[0].id)
        key, reverse = _SORT_KEYS[sort]
        return sorted(rows, key=key, reverse=reverse)

    def shape(row: tuple[User, list[Membership]]) -> dict[str, Any]:
        user, found = row
        active = user.last_activity_on
        return {**user_basic(user, ctx.base),
                "last_activity_on": active.date().isoformat() if active else None,
                "membership_type": "group_member",
                "removable": not is_last_owner(store, ("group", group.id), user.id),
                "created_at": iso(min(m.created_at for _, _, m in found)),
                "last_login_at": iso(user.last_sign_in_at), **({"email": user.email} if ctx.is_admin else {})}

    return paginate(ctx, store.memo(ctx.listing_key(), build), shape)


def _user(ctx: Ctx) -> User:
    number = parse_digits(ctx.path("user_id"))
    user = ctx.store.users.get(number) if number is not None else None
    if user is None:
        raise SandboxError.not_found("User")
    return user


async def list_memberships(ctx: Ctx) -> Any:
    group = _top_group(ctx)
    user = _user(ctx)
    store = ctx.store
    found = memberships(store, group).get(user.id)
    if not found:
        raise error(400, "400 Bad request - User is not a billable member")

    def shape(item: Membership) -> dict[str, Any]:
        kind, ident, member = item
        if kind == "group":
            source = store.groups[ident]
            name, url = source.full_name, f"{ctx.base}/groups/{source.full_path}/-/group_members"
        else:
            project = store.projects[ident]
            name = project.name_with_namespace
            url = f"{ctx.base}/{project.path_with_namespace}/-/project_members"
        level = AccessLevel(member.access_level)
        return {"id": membership_id(kind, ident, user.id), "source_id": ident, "source_full_name": name,
                "source_members_url": url, "created_at": iso(member.created_at),
                "expires_at": member.expires_at,
                "access_level": {"string_value": level.label, "integer_value": int(level)}}

    return paginate(ctx, found, shape)


def membership_id(kind: str, source_id: int, user_id: int) -> int:
    """A stable id for a membership record (the store keys memberships by source and user)."""
    return (2 if kind == "project" else 1) * 10**9 + source_id * 10_000 + user_id


async def remove_billable(ctx: Ctx) -> Any:
    group = _top_group(ctx)
    user = _user(ctx)
    store = ctx.store
    found = memberships(store, group).get(user.id)
    if not found:
        raise SandboxError.not_found("Member")
    if is_last_owner(store, ("group", group.id), user.id):
        raise error(400, "Members who are the last owner of the group cannot be removed")
    for kind, ident, _member in found:
        table = store.group_members if kind == "group" else store.project_members
        table.get(ident, {}).pop(user.id, None)
        overrides(store).discard((ident, user.id))
    store.touch()
    return Response(status_code=204)


routes: list[Route] = [
    Route("/groups/{id}/billable_members", endpoint(list_billable), methods=["GET"]),
    Route("/groups/{id}/billable_members/{user_id}/memberships", endpoint(list_memberships),
          methods=["GET"]),
    Route("/groups/{id}/billable_members/{user_id}", endpoint(remove_billable), methods=["DELETE"]),
]
