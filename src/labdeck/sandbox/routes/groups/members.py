"""Members of groups and projects (GitLab's API docs, "Group and project members"): direct and inherited
listings (highest level wins), one member both ways, add (several ids separated by commas), update, remove,
and the override flag of group members (not billable members: a listing of their own).

Group memberships live in `store.group_members`, project ones in `store.project_members`; the override flags
in `store.areas["group_members"]` (a set of `(group_id, user_id)`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import date
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.access_levels import MEMBER_LEVELS, PROJECT_MEMBER_LEVELS
from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, error, iso, json_response, paginate
from labdeck.sandbox.routes.groups.groups import authed_group, require_level
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.shapes import user_basic
from labdeck.sandbox.store import Member, Store, User

AREA = "group_members"
_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
NOT_FOUND = {"message": "404 Not found"}
# Sources: ("group", id) or ("project", id).
Source = tuple[str, int]


def overrides(store: Store) -> set[tuple[int, int]]:
    return store.area(AREA, set)


def member_json(store: Store, user: User, member: Member, base: str, *, admin: bool) -> dict[str, Any]:
    body = {**user_basic(user, base), "access_level": member.access_level,
            "created_at": iso(member.created_at), "expires_at": member.expires_at,
            "group_saml_identity": None, "membership_state": "active"}
    if member.created_by_id is not None and member.created_by_id in store.users:
        body["created_by"] = user_basic(store.users[member.created_by_id], base)
    if admin:
        body["email"] = user.email
    return body


def _resolve(ctx: Ctx, kind: str) -> tuple[Source, dict[int, Member]]:
    """The source named by the path and its direct memberships (created empty when absent)."""
    if kind == "groups":
        group = authed_group(ctx)
        return ("group", group.id), ctx.store.group_members.setdefault(group.id, {})
    ctx.require_user()
    project = find_project(ctx)
    return ("project", project.id), ctx.store.project_members.setdefault(project.id, {})


def inherited(store: Store, source: Source) -> dict[int, Member]:
    """Direct and inherited memberships of a source; for a user with several, the highest level."""
    kind, ident = source
    tables: list[dict[int, Member]] = []
    if kind == "project":
        project = store.projects[ident]
        tables.append(store.project_members.get(ident, {}))
        if project.namespace_kind == "group":
            tables += [store.group_members.get(g, {}) for g in store.ancestors(project.namespace_id)]
        else:
            owner = store.user_by_namespace(project.namespace_id)
            if owner is not None:
                tables.append({owner.id: Member(owner.id, 40, project.created_at)})
    else:
        tables += [store.group_members.get(g, {}) for g in store.ancestors(ident)]
    best: dict[int, Member] = {}
    for table in tables:
        for uid, member in table.items():
            if uid not in best or member.access_level > best[uid].access_level:
                best[uid] = member
    return best


def _manage_level(ctx: Ctx, source: Source) -> None:
    """Refuse (403) callers who may not administer the memberships of `source`."""
    store = ctx.store
    user = ctx.require_user()
    if user.is_admin:
        return
    kind, ident = source
    if kind == "group":
        require_level(ctx, store.groups[ident], 50)
    elif store.project_levels(user.id).get(ident, 0) < 40:
        raise SandboxError.forbidden()


def _listing(kind: str, *, all_members: bool) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        source, direct = _resolve(ctx, kind)
        members = inherited(ctx.store, source) if all_members else direct
        query = (ctx.params.str("query") or "").lower()
        wanted = set(ctx.params.int_list("user_ids"))
        rows = []
        for uid in sorted(members):
            user = ctx.store.users.get(uid)
            if user is None or (wanted and uid not in wanted):
                continue
            if query and query not in user.username.lower() and query not in user.name.lower():
                continue
            rows.append((user, members[uid]))
        return paginate(ctx, rows, lambda pair: member_json(ctx.store, pair[0], pair[1], ctx.base,
                                                            admin=ctx.is_admin))
    return handler


def _single(kind: str, *, all_members: bool) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        source, direct = _resolve(ctx, kind)
        members = inherited(ctx.store, source) if all_members else direct
        uid = _user_id(ctx)
        if uid not in members or uid not in ctx.store.users:
            raise SandboxError(404, NOT_FOUND)
        return member_json(ctx.store, ctx.store.users[uid], members[uid], ctx.base, admin=ctx.is_admin)
    return handler


def _user_id(ctx: Ctx) -> int:
    number = parse_digits(ctx.path("user_id"))
    if number is None:
        raise SandboxError.invalid("user_id")
    return number


def _user_by_id(store: Store, text: str) -> User | None:
    number = parse_digits(text)
    return None if number is None else store.users.get(number)


def _level(ctx: Ctx, source: Source) -> int:
    level = ctx.params.int("access_level")
    if level is None:
        raise SandboxError.missing("access_level")
    if level not in {int(x) for x in MEMBER_LEVELS}:
        raise SandboxError.bad_value("access_level")
    if source[0] == "project" and level not in {int(x) for x in PROJECT_MEMBER_LEVELS}:
        raise SandboxError.validation({"access_level": ["is not included in the list"]})
    return level


def _expiry(ctx: Ctx) -> str | None:
    value = ctx.params.str("expires_at")
    if not value:
        return None
    try:
        day = date.fromisoformat(value) if _DATE.match(value) else None
    except ValueError:
        day = None
    if day is None:
        raise SandboxError.invalid("expires_at")
    if day < ctx.store.now().date():
        raise SandboxError.validation({"expires_at": ["cannot be a date in the past"]})
    return value


def _add(kind: str) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        source, direct = _resolve(ctx, kind)
        _manage_level(ctx, source)
        raw = ctx.params.str("user_id")
        if not raw:
            raise SandboxError.missing("user_id")
        level, expires = _level(ctx, source), _expiry(ctx)
        acting = ctx.require_user()
        store = ctx.store
        ids = [part.strip() for part in raw.split(",") if part.strip()]
        if len(ids) == 1:
            user = _user_by_id(store, ids[0])
            if user is None:
                raise SandboxError.not_found("User")
            if user.id in direct:
                raise error(409, "Member already exists")
            member = direct[user.id] = Member(user.id, level, store.now(), expires, acting.id)
            store.touch()
            return json_response(member_json(store, user, member, ctx.base, admin=ctx.is_admin), 201)
        failures: dict[str, str] = {}
        for ident in ids:
            user = _user_by_id(store, ident)
            if user is None:
                failures[ident] = "User not found"
                continue
            direct[user.id] = Member(user.id, level, store.now(), expires, acting.id)
        store.touch()
        if failures:
            return json_response({"status": "error", "message": failures}, 400)
        return json_response({"status": "success"}, 201)
    return handler


def _update(kind: str) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        source, direct = _resolve(ctx, kind)
        _manage_level(ctx, source)
        uid = _user_id(ctx)
        level, expires = _level(ctx, source), _expiry(ctx)
        member = direct.get(uid)
        if member is None:
            raise SandboxError(404, NOT_FOUND)
        member.access_level = level
        if "expires_at" in ctx.params:
            member.expires_at = expires
        ctx.store.touch()
        return member_json(ctx.store, ctx.store.users[uid], member, ctx.base, admin=ctx.is_admin)
    return handler


def is_last_owner(store: Store, source: Source, uid: int) -> bool:
    kind, ident = source
    if kind != "group" or store.groups[ident].parent_id is not None:
        return False
    owners = [u for u, m in store.group_members.get(ident, {}).items() if m.access_level >= 50]
    return owners == [uid]


def _remove(kind: str) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        source, direct = _resolve(ctx, kind)
        _manage_level(ctx, source)
        uid = _user_id(ctx)
        if uid not in direct:
            raise SandboxError(404, NOT_FOUND)
        if is_last_owner(ctx.store, source, uid):
            raise SandboxError.forbidden()
        del direct[uid]
        overrides(ctx.store).discard((source[1], uid))
        ctx.store.touch()
        return Response(status_code=204)
    return handler


def _override(enable: bool) -> Callable[[Ctx], Any]:
    async def handler(ctx: Ctx) -> Any:
        source, direct = _resolve(ctx, "groups")
        _manage_level(ctx, source)
        uid = _user_id(ctx)
        member = direct.get(uid)
        if member is None:
            raise SandboxError(404, NOT_FOUND)
        flags = overrides(ctx.store)
        if enable:
            flags.add((source[1], uid))
        else:
            flags.discard((source[1], uid))
        ctx.store.touch()
        body = member_json(ctx.store, ctx.store.users[uid], member, ctx.base, admin=ctx.is_admin)
        return json_response({**body, "override": enable}, 201 if enable else 200)
    return handler


def _routes() -> list[Route]:
    out: list[Route] = []
    for kind in ("groups", "projects"):
        base = f"/{kind}/{{id}}/members"
        out += [
            Route(base, endpoint(_listing(kind, all_members=False)), methods=["GET"]),
            Route(base, endpoint(_add(kind)), methods=["POST"]),
            Route(f"{base}/all", endpoint(_listing(kind, all_members=True)), methods=["GET"]),
            Route(f"{base}/all/{{user_id}}", endpoint(_single(kind, all_members=True)), methods=["GET"]),
            Route(f"{base}/{{user_id}}", endpoint(_single(kind, all_members=False)), methods=["GET"]),
            Route(f"{base}/{{user_id}}", endpoint(_update(kind)), methods=["PUT"]),
            Route(f"{base}/{{user_id}}", endpoint(_remove(kind)), methods=["DELETE"]),
        ]
    out += [
        Route("/groups/{id}/members/{user_id}/override", endpoint(_override(True)), methods=["POST"]),
        Route("/groups/{id}/members/{user_id}/override", endpoint(_override(False)), methods=["DELETE"]),
    ]
    return out


routes: list[Route] = _routes()
