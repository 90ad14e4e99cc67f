"""Group projects: `GET /groups/:id/projects` and `GET /groups/:id/projects/shared` with every parameter of
GitLab's API docs, and the feature flags that gate `order_by=similarity` (`GET /features`,
`POST /features/:name`, administrators only, as GitLab's features API).

Records: `store.areas["group_projects"]` is a `SharingState` (enabled flags); the shares themselves live in
`seed/sharing.py`, read by every endpoint that shows them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from starlette.routing import Route

from labdeck.sandbox.http import Ctx, endpoint, json_response, paginate
from labdeck.sandbox.routes.groups.groups import find_group
from labdeck.sandbox.routes.projects.projects import owned_projects, project_bytes
from labdeck.sandbox.seed.sharing import projects_shared_with
from labdeck.sandbox.store import Project, Store

AREA = "group_projects"
SIMILARITY_FLAG = "similarity_search"
_ORDER: dict[str, Callable[[Project], Any]] = {
    "id": lambda p: p.id, "name": lambda p: (p.name.lower(), p.id), "path": lambda p: (p.path, p.id),
    "created_at": lambda p: (p.created_at, p.id), "updated_at": lambda p: (p.updated_at, p.id),
    "last_activity_at": lambda p: (p.last_activity_at, p.id),
}


@dataclass
class SharingState:
    features: set[str] = field(default_factory=set)


def state(store: Store) -> SharingState:
    return store.area(AREA, SharingState)


def similarity(project: Project, search: str) -> int:
    """A similarity score of `search` against a project: exact beats prefix beats substring, name before
    path before description."""
    score = 0
    for weight, text in ((6, project.name.lower()), (4, project.path.lower()),
                         (1, project.description.lower())):
        if text == search:
            score += weight * 3
        elif text.startswith(search):
            score += weight * 2
        elif search in text:
            score += weight
    return score


def _filter(ctx: Ctx, rows: list[Project], *, own_listing: bool) -> list[Project]:
    store, user, p = ctx.store, ctx.user, ctx.params
    rows = [pr for pr in rows if store.can_read_project(user, pr)]
    archived = p.bool("archived")
    if archived is not None:
        rows = [pr for pr in rows if pr.archived == archived]
    visibility = p.choice("visibility", ("public", "internal", "private"))
    if visibility:
        rows = [pr for pr in rows if pr.visibility == visibility]
    search = (p.str("search") or "").lower()
    if search:
        rows = [pr for pr in rows if search in pr.name.lower() or search in pr.path.lower()
                or search in pr.description.lower()]
    if own_listing and p.bool("owned"):
        owned = owned_projects(store, user) if user else set()
        rows = [pr for pr in rows if pr.id in owned]
    if p.bool("starred"):
        rows = []  # nobody stars anything in the sandbox
    minimum = p.int("min_access_level")
    if minimum is not None:
        levels = store.project_levels(user.id) if user else {}
        rows = [pr for pr in rows if levels.get(pr.id, 0) >= minimum]
    if own_listing and p.bool("with_security_reports"):
        rows = []  # no project has security report artifacts in the sandbox
    # with_issues_enabled / with_merge_requests_enabled: every sandbox project has both enabled.
    return rows


def _order(ctx: Ctx, rows: list[Project], *, allow_similarity: bool) -> list[Project]:
    p = ctx.params
    choices = [*_ORDER, "similarity"] if allow_similarity else list(_ORDER)
    order_by = p.choice("order_by", choices, "created_at") or "created_at"
    sort = p.choice("sort", ("asc", "desc"), "desc")
    if order_by == "similarity":
        if SIMILARITY_FLAG not in state(ctx.store).features:
            order_by = "created_at"  # flag off: the default order
        else:
            search = (p.str("search") or "").lower()
            if not search:
                return sorted(rows, key=_ORDER["name"])
            return sorted(rows, key=lambda pr: (-similarity(pr, search), pr.name.lower(), pr.id))
    return sorted(rows, key=_ORDER[order_by], reverse=sort == "desc")


def _respond(ctx: Ctx, rows: list[Project]) -> Any:
    simple = bool(ctx.params.bool("simple"))
    admin = ctx.is_admin
    attributes = admin and bool(ctx.params.bool("with_custom_attributes"))
    statistics = admin and bool(ctx.params.bool("statistics"))

    def shape(project: Project) -> bytes:  # encoded once per record until the store changes
        return project_bytes(ctx, project, simple=simple, statistics=statistics, attributes=attributes)

    return paginate(ctx, rows, shape)


async def group_projects(ctx: Ctx) -> Any:
    group = find_group(ctx)
    store, p = ctx.store, ctx.params

    def build() -> list[Project]:
        by_namespace = store.projects_by_namespace()
        groups = [group.id, *(store.descendants(group.id) if p.bool("include_subgroups") else [])]
        ids = [pid for gid in groups for pid in by_namespace.get(("group", gid), [])]
        if p.bool("with_shared", True):
            ids += [pid for pid in projects_shared_with(store, group.id) if pid not in ids]
        rows = _filter(ctx, [store.projects[i] for i in ids if i in store.projects], own_listing=True)
        return _order(ctx, rows, allow_similarity=True)

    return _respond(ctx, store.memo(ctx.listing_key(), build))


async def shared_projects(ctx: Ctx) -> Any:
    group = find_group(ctx)
    store = ctx.store

    def build() -> list[Project]:
        ids = [pid for pid in projects_shared_with(store, group.id) if pid in store.projects]
        rows = _filter(ctx, [store.projects[i] for i in ids], own_listing=False)
        return _order(ctx, rows, allow_similarity=False)

    return _respond(ctx, store.memo(ctx.listing_key(), build))


def _feature(name: str, enabled: bool) -> dict[str, Any]:
    return {"name": name, "state": "on" if enabled else "off",
            "gates": [{"key": "boolean", "value": enabled}], "definition": None}


async def list_features(ctx: Ctx) -> Any:
    ctx.require_admin()
    return [_feature(name, True) for name in sorted(state(ctx.store).features)]


async def set_feature(ctx: Ctx) -> Any:
    ctx.require_admin()
    ctx.params.require("value")
    name = ctx.path("name")
    enabled = bool(ctx.params.bool("value"))
    features = state(ctx.store).features
    if enabled:
        features.add(name)
    else:
        features.discard(name)
    ctx.store.touch()
    return json_response(_feature(name, enabled), 201)


routes: list[Route] = [
    Route("/groups/{id}/projects", endpoint(group_projects), methods=["GET"]),
    Route("/groups/{id}/projects/shared", endpoint(shared_projects), methods=["GET"]),
    Route("/features", endpoint(list_features), methods=["GET"]),
    Route("/features/{name}", endpoint(set_feature), methods=["POST"]),
]
