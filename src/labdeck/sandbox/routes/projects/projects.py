"""Core project routes: `GET /projects` (offset and keyset pagination) and `GET /projects/:id`.

Other areas add their own `/projects/:id/...` routes in their modules; they find the project the same way
with `find_project()`, which gives the 404 GitLab gives to non-members of a private project.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, encode, endpoint, keyset_paginate, paginate
from labdeck.sandbox.shapes import project_json, project_simple, project_statistics
from labdeck.sandbox.store import Project, Store, User

# GitLab refuses offset pagination past this offset on /projects and points to keyset pagination.
MAX_OFFSET = 50_000
_ORDER = {
    "id": lambda p: p.id, "name": lambda p: (p.name.lower(), p.id), "path": lambda p: (p.path, p.id),
    "created_at": lambda p: (p.created_at, p.id), "updated_at": lambda p: (p.updated_at, p.id),
    "last_activity_at": lambda p: (p.last_activity_at, p.id), "star_count": lambda p: (p.star_count, p.id),
    "similarity": lambda p: (p.name.lower(), p.id),
}
KEYSET_ERROR = "Keyset pagination is not yet available for this type of request"


def find_project(ctx: Ctx, ident: str | None = None) -> Project:
    """The project named by the `id` path parameter (id or URL-encoded path) that the caller may read."""
    key = ctx.path("id") if ident is None else ident
    store = ctx.store
    number = parse_digits(key)
    project = store.projects.get(number) if number is not None else store.project_by_path(key)
    if project is None or not store.can_read_project(ctx.user, project):
        raise SandboxError.not_found("Project")
    return project


def require_level(ctx: Ctx, project: Project, level: int) -> None:
    """401 for anonymous callers, 403 below access `level` in `project` (administrators pass)."""
    user = ctx.require_user()
    if not user.is_admin and ctx.store.project_levels(user.id).get(project.id, 0) < level:
        raise SandboxError.forbidden()


def owned_projects(store: Store, user: User) -> set[int]:
    owned = {pid for pid in store.projects_by_namespace().get(("user", user.namespace_id), [])}
    for gid, level in store.group_levels(user.id).items():
        if level >= 50:
            owned.update(store.projects_by_namespace().get(("group", gid), []))
    return owned


def visible_projects(ctx: Ctx, *, cursor: bool = True) -> list[Project]:
    """Projects the caller may list, filtered by the shared `/projects` parameters (not yet ordered);
    `cursor=False` leaves `id_after`/`id_before` to keyset pagination."""
    store, user, p = ctx.store, ctx.user, ctx.params
    levels = store.project_levels(user.id) if user else {}
    rows = [pr for pr in store.projects.values() if store.can_read_project(user, pr)]
    if user is not None and (p.bool("membership") or p.int("min_access_level") is not None):
        minimum = p.int("min_access_level", 0) or 0
        rows = [pr for pr in rows if levels.get(pr.id, 0) >= max(minimum, 1)]
    if user is not None and p.bool("owned"):
        owned = owned_projects(store, user)
        rows = [pr for pr in rows if pr.id in owned]
    if p.bool("starred"):
        rows = []  # nobody stars anything in the sandbox yet
    visibility = p.choice("visibility", ("public", "internal", "private"))
    if visibility:
        rows = [pr for pr in rows if pr.visibility == visibility]
    archived = p.bool("archived")
    if archived is not None:
        rows = [pr for pr in rows if pr.archived == archived]
    search = (p.str("search") or "").lower()
    if search:
        in_ns = p.bool("search_namespaces")
        rows = [pr for pr in rows if search in pr.name.lower() or search in pr.path.lower()
                or search in pr.description.lower() or (in_ns and search in pr.path_with_namespace.lower())]
    topic = p.list("topic")
    if topic:
        rows = [pr for pr in rows if all(t in pr.topics for t in topic)]
    after, before = (p.int("id_after"), p.int("id_before")) if cursor else (None, None)
    if after is not None:
        rows = [pr for pr in rows if pr.id > after]
    if before is not None:
        rows = [pr for pr in rows if pr.id < before]
    wanted = p.dict("custom_attributes")
    if wanted and ctx.is_admin:  # ignored for everyone else, as GitLab does
        rows = [pr for pr in rows if all(pr.custom_attributes.get(k) == v for k, v in wanted.items())]
    return rows


async def list_projects(ctx: Ctx) -> Any:
    p = ctx.params
    order_by = p.choice("order_by", _ORDER)
    sort = p.choice("sort", ("asc", "desc"), "desc") or "desc"
    keyset = p.str("pagination") == "keyset"
    if keyset and order_by != "id":
        raise SandboxError(405, {"error": KEYSET_ERROR})

    def ordered() -> list[Project]:
        rows = visible_projects(ctx, cursor=not keyset)
        rows.sort(key=_ORDER[order_by or "created_at"], reverse=sort == "desc")
        return rows

    # Filtered and ordered once per caller and filter set; every page (or keyset cursor) reuses it.
    rows = ctx.store.memo(ctx.listing_key(*(("id_after", "id_before") if keyset else ())), ordered)
    simple = bool(p.bool("simple"))

    statistics = ctx.is_admin and bool(p.bool("statistics"))

    def shape(project: Project) -> bytes:
        return project_bytes(ctx, project, simple=simple, statistics=statistics)

    if keyset:
        return keyset_paginate(ctx, rows, shape, descending=sort == "desc")
    page, per_page = p.int("page", 1) or 1, min(p.int("per_page", 20) or 20, 100)
    if (page - 1) * per_page >= MAX_OFFSET:
        raise SandboxError(405, {"error": (
            f"Offset pagination has a maximum allowed offset of {MAX_OFFSET} for requests that return "
            "objects of type Project. Remaining records can be retrieved using keyset pagination.")})
    return paginate(ctx, rows, shape)


def project_bytes(ctx: Ctx, project: Project, *, simple: bool = False, statistics: bool = False,
                  attributes: bool = False) -> bytes:
    """A project as a listing shows it, encoded once per record and shape until the store changes (every
    project listing, `/projects` and a group's, shares them): `simple`, or the full record with
    `statistics` and `custom_attributes` when asked (the caller decides who may see them)."""
    store, base, admin = ctx.store, ctx.base, ctx.is_admin
    if simple:
        return store.memo(("project_simple_bytes", project.id, base),
                          lambda: encode(project_simple(store, project, base)))

    def full() -> bytes:
        body = project_json(store, project, base, admin=admin)
        if statistics:
            body["statistics"] = project_statistics(ctx.store, project)
        if attributes:
            body["custom_attributes"] = [{"key": k, "value": v} for k, v in project.custom_attributes.items()]
        return encode(body)

    return store.memo(("project_bytes", project.id, base, admin, statistics, attributes), full)


def _permissions(ctx: Ctx, project: Project) -> dict[str, Any]:
    user = ctx.user
    if user is None:
        return {"project_access": None, "group_access": None}
    direct = ctx.store.project_members.get(project.id, {}).get(user.id)
    group_level = None
    if project.namespace_kind == "group":
        group_level = ctx.store.group_levels(user.id).get(project.namespace_id)
    return {
        "project_access": ({"access_level": direct.access_level, "notification_level": 3}
                           if direct else None),
        "group_access": {"access_level": group_level, "notification_level": 3} if group_level else None,
    }


async def get_project(ctx: Ctx) -> Any:
    project = find_project(ctx)
    body = project_json(ctx.store, project, ctx.base, admin=ctx.is_admin)
    if ctx.is_admin and ctx.params.bool("statistics"):
        body["statistics"] = project_statistics(ctx.store, project)
    if ctx.user is not None:
        body["permissions"] = _permissions(ctx, project)
    return body


routes: list[Route] = [
    Route("/projects", endpoint(list_projects), methods=["GET"]),
    Route("/projects/{id}", endpoint(get_project), methods=["GET"]),
]
