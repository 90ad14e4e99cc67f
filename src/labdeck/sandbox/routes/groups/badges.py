"""Group badges (GitLab's API docs, "Group badges"): list (case-sensitive `name` filter), get, create,
update, delete, and render. Every placeholder GitLab documents (`domain.badges.PLACEHOLDERS`) is resolved
from the group's first project by creation date, and left as it is when the group has no project. Link
and image URLs must be http or https (400 `{"message": {"link_url": ["is blocked: Only allowed schemes are
http, https"]}}` on create, update and render, as GitLab's URL validation answers).

Records: `store.areas["group_badges"]` is a `BadgesState`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.badges import badge_errors, render_url
from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response, paginate
from labdeck.sandbox.routes.groups.groups import authed_group, require_level
from labdeck.sandbox.seed.git_history import project_repository
from labdeck.sandbox.store import Group, Project, Store

AREA = "group_badges"
MANAGE_LEVEL = 50


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


def placeholder_values(store: Store, project: Project, server: str) -> dict[str, str | None]:
    """What each placeholder stands for in `project` (GitLab's `Badge::PLACEHOLDERS`): `server` is the
    instance's host; the Pages domain is `pages.<host>` in the sandbox."""
    repo = project_repository(store, project)
    head = repo.branches.get(project.default_branch)
    latest = max(repo.tags.values(), key=lambda t: (repo.commits[t.commit_id].created_at, t.name),
                 default=None)
    namespace = project.path_with_namespace.rpartition("/")[0]
    root = store.group_by_path(namespace.split("/")[0]) if project.namespace_kind == "group" else None
    return {"project_path": project.path_with_namespace, "project_title": project.name,
            "project_name": project.path, "project_id": str(project.id), "project_namespace": namespace,
            "group_name": root.name if root is not None else None, "gitlab_server": server,
            "gitlab_pages_domain": f"pages.{server}", "default_branch": project.default_branch,
            "commit_sha": head, "latest_tag": latest.name if latest is not None else None}


def _server(ctx: Ctx) -> str:
    return ctx.base.split("://", 1)[-1].split("/", 1)[0].split(":", 1)[0]


def _check(link_url: str | None, image_url: str | None) -> None:
    errors = badge_errors(link_url, image_url)
    if errors:
        raise SandboxError.validation(errors)


def first_project(store: Store, group: Group) -> Project | None:
    """The group's first project by creation date (ties by id)."""
    ids = store.projects_by_namespace().get(("group", group.id), [])
    projects = [store.projects[i] for i in ids]
    return min(projects, key=lambda p: (p.created_at, p.id)) if projects else None


def render(ctx: Ctx, url: str, project: Project | None) -> str:
    if project is None:
        return url
    return render_url(url, placeholder_values(ctx.store, project, _server(ctx)))


def badge_json(ctx: Ctx, badge: Badge) -> dict[str, Any]:
    project = first_project(ctx.store, ctx.store.groups[badge.group_id])
    return {"name": badge.name, "id": badge.id, "link_url": badge.link_url, "image_url": badge.image_url,
            "rendered_link_url": render(ctx, badge.link_url, project),
            "rendered_image_url": render(ctx, badge.image_url, project), "kind": "group"}


def _find(ctx: Ctx, group: Group) -> Badge:
    number = parse_digits(ctx.path("badge_id"))
    if number is None:
        raise SandboxError.invalid("badge_id")
    badge = state(ctx.store).badges.get(number)
    if badge is None or badge.group_id != group.id:
        raise SandboxError.not_found("Badge")
    return badge


async def list_badges(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    name = ctx.params.str("name")
    badges = [b for b in state(ctx.store).badges.values()
              if b.group_id == group.id and (name is None or b.name == name)]
    return paginate(ctx, sorted(badges, key=lambda b: b.id), lambda b: badge_json(ctx, b))


async def get_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    return badge_json(ctx, _find(ctx, group))


async def create_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    p = ctx.params
    p.require("link_url", "image_url")
    _check(p.str("link_url"), p.str("image_url"))
    badge = add_badge(ctx.store, group.id, p.str("name") or "", p.str("link_url") or "",
                      p.str("image_url") or "")
    ctx.store.touch()
    return json_response(badge_json(ctx, badge), 201)


async def update_badge(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    badge = _find(ctx, group)
    p = ctx.params
    _check(p.str("link_url") or None, p.str("image_url") or None)
    for name in ("link_url", "image_url", "name"):
        value = p.str(name)
        if value:
            setattr(badge, name, value)
    ctx.store.touch()
    return badge_json(ctx, badge)


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
    _check(link, image)
    return {"link_url": link, "image_url": image, "rendered_link_url": render(ctx, link, project),
            "rendered_image_url": render(ctx, image, project)}


routes: list[Route] = [
    Route("/groups/{id}/badges", endpoint(list_badges), methods=["GET"]),
    Route("/groups/{id}/badges", endpoint(create_badge), methods=["POST"]),
    Route("/groups/{id}/badges/render", endpoint(render_badge), methods=["GET"]),
    Route("/groups/{id}/badges/{badge_id}", endpoint(get_badge), methods=["GET"]),
    Route("/groups/{id}/badges/{badge_id}", endpoint(update_badge), methods=["PUT"]),
    Route("/groups/{id}/badges/{badge_id}", endpoint(delete_badge), methods=["DELETE"]),
]
