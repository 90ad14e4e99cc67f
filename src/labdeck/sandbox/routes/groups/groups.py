"""Group routes: the listings (`GET /groups`, `/groups/:id/subgroups`, `/groups/:id/descendant_groups`)
with every parameter of GitLab's API docs, `GET /groups/:id`, `POST /groups`, and the access helpers
the other group areas share (group projects and shared projects are routes of their own).

`find_group()` is what other areas use to resolve `:id` (id or URL-encoded full path) with GitLab's 404;
`require_level()` refuses (403) a caller below an access level in a group (administrators always pass).
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any

from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import (
    Ctx,
    _base_and_query,
    _link,
    _page_args,
    endpoint,
    json_array_response,
    json_response,
    paginate,
)
from labdeck.sandbox.shapes import group_json, project_json, project_statistics
from labdeck.sandbox.store import Group, Member, Store, User

_ORDER: dict[str, Callable[[Group], Any]] = {
    "name": lambda g: (g.name.lower(), g.id), "path": lambda g: (g.path, g.id), "id": lambda g: g.id}
_STAT_FIELDS = ("storage_size", "repository_size", "wiki_size", "lfs_objects_size", "job_artifacts_size",
                "packages_size", "snippets_size")


def find_group(ctx: Ctx, ident: str | None = None) -> Group:
    """The group named by the `id` path parameter (id or URL-encoded full path) that the caller may read."""
    key = ctx.path("id") if ident is None else ident
    number = parse_digits(key)
    group = ctx.store.groups.get(number) if number is not None else ctx.store.group_by_path(key)
    if group is None or not ctx.store.can_read_group(ctx.user, group):
        raise SandboxError.not_found("Group")
    return group


def authed_group(ctx: Ctx) -> Group:
    """`find_group()` for endpoints that need authentication (401 when anonymous)."""
    ctx.require_user()
    return find_group(ctx)


def level_in(store: Store, user: User | None, group: Group) -> int:
    """The caller's effective level in a group (inherited from ancestors); 0 when not a member."""
    if user is None:
        return 0
    return store.group_levels(user.id).get(group.id, 0)


def require_level(ctx: Ctx, group: Group, minimum: int) -> User:
    """The caller, when it is an administrator or has at least `minimum` in `group`; else 403 (401 when
    anonymous)."""
    user = ctx.require_user()
    if not user.is_admin and level_in(ctx.store, user, group) < minimum:
        raise SandboxError.forbidden()
    return user


def group_statistics(store: Store, group: Group) -> dict[str, int]:
    """Storage statistics of a group: the sums over the projects of the group and its subgroups."""
    by_namespace = store.projects_by_namespace()
    totals = dict.fromkeys(_STAT_FIELDS, 0)
    for gid in [group.id, *store.descendants(group.id)]:
        for pid in by_namespace.get(("group", gid), []):
            stats = project_statistics(store, store.projects[pid])
            for name in _STAT_FIELDS:
                totals[name] += stats.get(name, 0)
    return totals


def listed_groups(ctx: Ctx) -> list[Group]:
    """Groups of `GET /groups` for the caller, with GitLab's defaults for `all_available` (false for
    users, true for administrators; `owned` and `min_access_level` take precedence)."""
    store, user, p = ctx.store, ctx.user, ctx.params
    all_available = p.bool("all_available", ctx.is_admin)
    if user is not None and p.bool("owned"):
        levels = store.group_levels(user.id)
        return [store.groups[g] for g, level in levels.items() if level >= 50]
    minimum = p.int("min_access_level")
    if user is not None and minimum is not None:
        levels = store.group_levels(user.id)
        return [store.groups[g] for g, level in levels.items() if level >= minimum]
    if ctx.is_admin and all_available:
        return list(store.groups.values())
    seen = set(store.reachable_groups(user.id)) if user is not None else set()
    if user is None or all_available:
        seen.update(g.id for g in store.groups.values()
                    if g.visibility == "public" or (user is not None and g.visibility == "internal"
                                                    and not user.external))
    return [store.groups[g] for g in seen]


def _below(ctx: Ctx, ids: list[int]) -> list[Group]:
    """Groups among `ids` the caller may read, narrowed by `owned` and `min_access_level`."""
    store, user, p = ctx.store, ctx.user, ctx.params
    rows = [store.groups[g] for g in ids if store.can_read_group(user, store.groups[g])]
    minimum = 50 if p.bool("owned") else p.int("min_access_level")
    if minimum is not None:
        levels = store.group_levels(user.id) if user else {}
        rows = [g for g in rows if levels.get(g.id, 0) >= minimum]
    return rows


def _listing(ctx: Ctx, source: Callable[[], list[Group]], *, top_level_allowed: bool) -> Any:
    p = ctx.params
    order_by = p.choice("order_by", _ORDER, "name") or "name"
    sort = p.choice("sort", ("asc", "desc"), "asc")
    skip = set(p.int_list("skip_groups"))
    search = (p.str("search") or "").lower()
    top_level = top_level_allowed and p.bool("top_level_only")
    wanted = p.dict("custom_attributes") if ctx.is_admin else {}
    statistics = ctx.is_admin and bool(p.bool("statistics"))
    attributes = ctx.is_admin and bool(p.bool("with_custom_attributes"))

    def ordered() -> list[Group]:
        rows = [g for g in source() if g.id not in skip
                and (not search or search in g.name.lower() or search in g.path.lower())
                and (not top_level or g.parent_id is None)
                and all(g.custom_attributes.get(k) == v for k, v in wanted.items())]
        rows.sort(key=_ORDER[order_by], reverse=sort == "desc")
        return rows

    def shape(group: Group) -> dict[str, Any]:
        body = group_json(group, ctx.base)
        if statistics:
            body["statistics"] = group_statistics(ctx.store, group)
        if attributes:
            body["custom_attributes"] = [{"key": k, "value": v} for k, v in group.custom_attributes.items()]
        return body

    if p.str("pagination") == "keyset" and ctx.user is None:  # GitLab: keyset for anonymous callers only
        if order_by != "name" or sort != "asc":
            raise SandboxError(405, {"error": KEYSET_ERROR})
        return _name_keyset(ctx, ctx.store.memo(ctx.listing_key("cursor"), ordered), shape)
    return paginate(ctx, ctx.store.memo(ctx.listing_key(), ordered), shape)  # signed in: by page number


KEYSET_ERROR = "Keyset pagination is not yet available for this type of request"


def _name_keyset(ctx: Ctx, rows: Sequence[Group], shape: Callable[[Group], Any]) -> Any:
    """GitLab's keyset pages of `GET /groups` (`order_by=name`, `sort=asc`): an opaque `cursor` (base64
    JSON of the last row's name and id) in the `Link` header's `next`, none after the last page."""
    _, per_page = _page_args(ctx.params)
    cursor = ctx.params.str("cursor")
    if cursor:
        try:
            last = json.loads(base64.urlsafe_b64decode(cursor.encode()))
            after = (str(last["name"]).lower(), int(last["id"]))
        except (ValueError, KeyError, TypeError, binascii.Error):
            raise SandboxError.invalid("cursor") from None
        rows = [g for g in rows if (g.name.lower(), g.id) > after]
    chunk = list(rows[:per_page])
    headers: dict[str, str] = {}
    if len(rows) > per_page:
        token = base64.urlsafe_b64encode(json.dumps(
            {"name": chunk[-1].name, "id": str(chunk[-1].id), "_kd": "n"}).encode()).decode()
        url, pairs = _base_and_query(ctx, {"cursor", "page", "per_page"})
        link = _link(url, [*pairs, ("per_page", str(per_page)), ("cursor", token)], "next")
        headers = {"Link": link}
    return json_array_response([shape(g) for g in chunk], headers=headers)


async def list_groups(ctx: Ctx) -> Any:
    return _listing(ctx, lambda: listed_groups(ctx), top_level_allowed=True)


async def list_subgroups(ctx: Ctx) -> Any:
    group = find_group(ctx)
    return _listing(ctx, lambda: _below(ctx, ctx.store.children().get(group.id, [])), top_level_allowed=False)


async def list_descendants(ctx: Ctx) -> Any:
    group = find_group(ctx)
    return _listing(ctx, lambda: _below(ctx, ctx.store.descendants(group.id)), top_level_allowed=False)


async def get_group(ctx: Ctx) -> Any:
    group = find_group(ctx)
    body = group_json(group, ctx.base)
    body["shared_with_groups"] = []
    if ctx.is_admin and ctx.params.bool("statistics"):
        body["statistics"] = group_statistics(ctx.store, group)
    if ctx.params.bool("with_projects", True):
        pids = ctx.store.projects_by_namespace().get(("group", group.id), [])
        visible = [ctx.store.projects[i] for i in pids
                   if ctx.store.can_read_project(ctx.user, ctx.store.projects[i])]
        body["projects"] = [project_json(ctx.store, pr, ctx.base) for pr in visible[:100]]
        body["shared_projects"] = []
    return body


async def create_group(ctx: Ctx) -> Any:
    user = ctx.require_user()
    p = ctx.params
    p.require("name", "path")
    parent_id = p.int("parent_id")
    parent = None
    if parent_id is not None:
        parent = find_group(ctx, str(parent_id))
        if not user.is_admin and ctx.store.group_levels(user.id).get(parent.id, 0) < 40:
            raise SandboxError.forbidden()
    name, path = p.str("name") or "", p.str("path") or ""
    full_path = f"{parent.full_path}/{path}" if parent else path
    if ctx.store.group_by_path(full_path) is not None:
        raise SandboxError.validation({"path": ["has already been taken"]})
    visibility = p.choice("visibility", ("public", "internal", "private"), "private") or "private"
    group = add_group_record(ctx.store, name, path, parent, visibility, p.str("description") or "", user)
    return json_response(group_json(group, ctx.base), 201)


def add_group_record(store: Store, name: str, path: str, parent: Group | None, visibility: str,
                     description: str, owner: User) -> Group:
    """Create a group (the creator becomes its owner) and record the mutation."""
    full_path = f"{parent.full_path}/{path}" if parent else path
    group = Group(id=store.next_id("namespace"), name=name, path=path, full_path=full_path,
                  full_name=f"{parent.full_name} / {name}" if parent else name,
                  parent_id=parent.id if parent else None, visibility=visibility,  # type: ignore[arg-type]
                  description=description, created_at=store.now())
    store.groups[group.id] = group
    store.group_members[group.id] = {owner.id: Member(owner.id, 50, store.now(), created_by_id=owner.id)}
    store.touch()
    return group


routes: list[Route] = [
    Route("/groups", endpoint(list_groups), methods=["GET"]),
    Route("/groups", endpoint(create_group), methods=["POST"]),
    Route("/groups/{id}/subgroups", endpoint(list_subgroups), methods=["GET"]),
    Route("/groups/{id}/descendant_groups", endpoint(list_descendants), methods=["GET"]),
    Route("/groups/{id}", endpoint(get_group), methods=["GET"]),
]
