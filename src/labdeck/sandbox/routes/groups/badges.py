"""Group badges (contract document 2, "Group badges"): list (case-sensitive `name` filter), get, create,
update, delete, and render. The four placeholders are resolved from the group's first project by creation
date, and left as they are when the group has no project.

Records: `store.areas["group_badges"]` is a `BadgesState`.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response, paginate
from labdeck.sandbox.routes.groups.groups import authed_group, require_level
from labdeck.sandbox.store import Group, Project, Store

AREA = "group_badges"
MANAGE_LEVEL = 50
PLACEHOLDERS = ("%{project_path}", "%{project_id}", "%{default_branch}", "%{commit_sha}")


@dataclass
class Badge:
    id: int
    group_id: int
    name: str
    link_url: str
    image_url: str


@dataclass
class BadgesState:
    badges: dict[int, Badge] = field(default_factory=dict)


def state(store: Store) -> BadgesState:
    return store.area(AREA, BadgesState)


def add_badge(store: Store, group_id: int, name: str, link_url: str, image_url: str) -> Badge:
    badge = Badge(store.next_id("badge"), group_id, name, link_url, image_url)
    state(store).badges[badge.id] = badge
    return badge


def seed(store: Store, ctx: Any) -> None:
    acme = store.group_by_path("acme")
    if acme is not None:
        add_badge(store, acme.id, "pipeline", "https://ci.acme.example/%{project_path}/-/commits/%{default_branch}",
                  "https://ci.acme.example/%{project_path}/badges/%{default_branch}/pipeline.svg")
        add_badge(store, acme.id, "Coverage", "https://cov.acme.example/%{project_id}",
                  "https://cov.acme.example/%{project_id}/%{commit_sha}.svg")
    hidden = store.group_by_path("hidden-lab")
    if hidden is not None:
        add_badge(store, hidden.id, "license", "https://example.com/license", "https://img.example.com/mit.svg")


def commit_sha(project: Project) -> str:
    """The (sandbox) last commit SHA of a project's default branch."""
    return hashlib.sha1(f"{project.id}:{project.default_branch}".encode()).hexdigest()


def first_project(store: Store, group: Group) -> Project | None:
    """The group's first project by creation date (ties by id)."""
    ids = store.projects_by_namespace().get(("group", group.id), [])
    projects = [store.projects[i] for i in ids]
    return min(projects, key=lambda p: (p.created_at, p.id)) if projects else None


def render(url: str, project: Project | None) -> str:
    if project is None:
        return url
    values = (project.path_with_namespace, str(project.id), project.default_branch, commit_sha(project))
    for placeholder, value in zip(PLACEHOLDERS, values, strict=True):
        url = url.replace(placeholder, value)
    return url


def badge_json(store: Store, badge: Badge) -> dict[str, Any]:
    project = first_project(store, store.groups[badge.group_id])
    return {"name": badge.name, "id": badge.id, "link_url": badge.link_url, "image_url": badge.image_url,
            "rendered_link_url": render(badge.link_url, project),
            "rendered_image_url": render(badge.image_url, project), "kind": "group"}


def _find(ctx: Ctx, group: Group) -> Badge:
    raw = ctx.path("badge_id")
    if not raw.isdigit():
        raise SandboxError.invalid("badge_id")
    badge = state(ctx.store).badges.get(int(raw))
    if badge is None or badge.group_id != group.id:
        raise SandboxError.not_found("Badge")
    return badge


async def list_badges(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    name = ctx.params.str("name")
    badges = [b for b in state(ctx.store).badges.values()
              if b.group_id == group.id and (name is None or b.name == name)]
    return paginate(ctx, sorted(badges, key=lambda b: b.id), lambda b: badge_json(ctx.store, b))


async def get_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    return badge_json(ctx.store, _find(ctx, group))


async def create_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    p = ctx.params
    p.require("link_url", "image_url")
    badge = add_badge(ctx.store, group.id, p.str("name") or "", p.str("link_url") or "",
                      p.str("image_url") or "")
    ctx.store.touch()
    return json_response(badge_json(ctx.store, badge), 201)


async def update_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    badge = _find(ctx, group)
    p = ctx.params
    for name in ("link_url", "image_url", "name"):
        value = p.str(name)
        if value:
            setattr(badge, name, value)
    ctx.store.touch()
    return badge_json(ctx.store, badge)


async def delete_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    badge = _find(ctx, group)
    del state(ctx.store).badges[badge.id]
    ctx.store.touch()
    return Response(status_code=204)


async def render_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    p = ctx.params
    p.require("link_url", "image_url")
    project = first_project(ctx.store, group)
    link, image = p.str("link_url") or "", p.str("image_url") or ""
    return {"link_url": link, "image_url": image, "rendered_link_url": render(link, project),
            "rendered_image_url": render(image, project)}


routes: list[Route] = [
    Route("/groups/{id}/badges", endpoint(list_badges), methods=["GET"]),
    Route("/groups/{id}/badges", endpoint(create_badge), methods=["POST"]),
    Route("/groups/{id}/badges/render", endpoint(render_badge), methods=["GET"]),
    Route("/groups/{id}/badges/{badge_id}", endpoint(get_badge), methods=["GET"]),
    Route("/groups/{id}/badges/{badge_id}", endpoint(update_badge), methods=["PUT"]),
    Route("/groups/{id}/badges/{badge_id}", endpoint(delete_badge), methods=["DELETE"]),
]
