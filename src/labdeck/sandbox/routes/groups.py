"""Core group routes: `GET /groups` (basic listing), `GET /groups/:id`, `POST /groups`.

The groups area extends this module with every listing parameter, subgroups, descendants and the rest.
`find_group()` is what other areas use to resolve `:id` (id or URL-encoded full path) with GitLab's 404.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response, paginate
from labdeck.sandbox.shapes import group_json, project_json
from labdeck.sandbox.store import Group, Member

_ORDER = {"name": lambda g: (g.name.lower(), g.id), "path": lambda g: (g.path, g.id), "id": lambda g: g.id}


def find_group(ctx: Ctx, ident: str | None = None) -> Group:
    """The group named by the `id` path parameter (id or URL-encoded full path) that the caller may read."""
    key = ctx.path("id") if ident is None else ident
    group = ctx.store.groups.get(int(key)) if key.isdigit() else ctx.store.group_by_path(key)
    if group is None or not ctx.store.can_read_group(ctx.user, group):
        raise SandboxError.not_found("Group")
    return group


def listed_groups(ctx: Ctx) -> list[Group]:
    """Groups of `GET /groups` for the caller, with GitLab's defaults for `all_available`."""
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


async def list_groups(ctx: Ctx) -> Any:
    p = ctx.params
    order_by = p.choice("order_by", _ORDER, "name") or "name"
    sort = p.choice("sort", ("asc", "desc"), "asc")
    skip = set(p.int_list("skip_groups"))
    search = (p.str("search") or "").lower()
    top_level = p.bool("top_level_only")
    wanted = p.dict("custom_attributes") if ctx.is_admin else {}

    def ordered() -> list[Group]:
        rows = [g for g in listed_groups(ctx) if g.id not in skip
                and (not search or search in g.name.lower() or search in g.path.lower())
                and (not top_level or g.parent_id is None)
                and all(g.custom_attributes.get(k) == v for k, v in wanted.items())]
        rows.sort(key=_ORDER[order_by], reverse=sort == "desc")
        return rows

    return paginate(ctx, ctx.store.memo(ctx.listing_key(), ordered), lambda g: group_json(g, ctx.base))


async def get_group(ctx: Ctx) -> Any:
    group = find_group(ctx)
    body = group_json(group, ctx.base)
    body["shared_with_groups"] = []
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
    store = ctx.store
    group = Group(id=store.next_id("namespace"), name=name, path=path, full_path=full_path,
                  full_name=f"{parent.full_name} / {name}" if parent else name, parent_id=parent_id,
                  visibility=visibility, description=p.str("description") or "", created_at=store.now())  # type: ignore[arg-type]
    store.groups[group.id] = group
    store.group_members[group.id] = {user.id: Member(user.id, 50, store.now(), created_by_id=user.id)}
    store.touch()
    return json_response(group_json(group, ctx.base), 201)


routes: list[Route] = [
    Route("/groups", endpoint(list_groups), methods=["GET"]),
    Route("/groups", endpoint(create_group), methods=["POST"]),
    Route("/groups/{id}", endpoint(get_group), methods=["GET"]),
]
