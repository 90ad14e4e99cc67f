"""Repository tags (GitLab's API docs, "Repository tags"), as GitLab's `lib/api/tags.rb` behaves:

- `GET /projects/:id/repository/tags`: `order_by` `name` or `updated` (the commit's date; default),
  `sort` (default `desc`), `search` (`^term` begins with, `term$` ends with, else contains); paginated.
  Reading needs no authentication when the project is public.
- `GET .../tags/:tag_name` (`404 Tag Not Found`). Every tag carries `created_at`: the tag object's date
  for an annotated tag, null for a lightweight one (it has no date of its own).
- `POST .../tags`: `tag_name` and `ref` (commit id, branch or tag) required; `message` makes an annotated
  tag. Failures answer 405 with a message (`Tag v1 already exists`, `Target nope is invalid`,
  `Tag name invalid`). Developer (30) or more.
- `DELETE .../tags/:tag_name`: 204; Developer, Maintainer (40) for a protected tag.
"""

from __future__ import annotations

import re
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, json_response, paginate
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.seed.git_history import ProjectRepository, RepoTag, project_repository
from labdeck.sandbox.seed.git_history import seed as seed  # the area's seeding function
from labdeck.sandbox.shapes import commit_json
from labdeck.sandbox.store import Project

DEVELOPER, MAINTAINER = 30, 40
# git check-ref-format, roughly: no spaces, control characters, `~^:?*[\`, `..`, `@{`, leading `-`.
_BAD_NAME = re.compile(r"[\s~^:?*\[\\\x00-\x1f\x7f]|\.\.|@\{|^-|^/|/$|\.lock$|\.$|//")


def tag_json(ctx: Ctx, project: Project, repo: ProjectRepository, tag: RepoTag) -> dict[str, Any]:
    """GitLab's `Tag` entity, its `commit` the `Commit` entity."""
    release = (None if tag.release_description is None
               else {"tag_name": tag.name, "description": tag.release_description})
    web = f"{ctx.base}/{project.path_with_namespace}"
    return {"commit": commit_json(repo.commits[tag.commit_id], web), "release": release, "name": tag.name,
            "target": tag.target, "message": tag.message, "protected": tag.protected,
            "created_at": iso(tag.created_at) if tag.created_at is not None else None}


def _matches(name: str, search: str) -> bool:
    if search.startswith("^"):
        return name.startswith(search[1:])
    if search.endswith("$"):
        return name.endswith(search[:-1])
    return search.lower() in name.lower()


async def list_tags(ctx: Ctx) -> Any:
    project = find_project(ctx)
    repo = project_repository(ctx.store, project)
    p = ctx.params
    order_by = p.choice("order_by", ("name", "updated", "version"), "updated")
    sort = p.choice("sort", ("asc", "desc"), "desc")
    search = p.str("search") or ""
    tags = [t for t in repo.tags.values() if not search or _matches(t.name, search)]
    if order_by == "name":
        tags.sort(key=lambda t: t.name, reverse=sort == "desc")
    else:
        tags.sort(key=lambda t: (repo.commits[t.commit_id].created_at, t.name), reverse=sort == "desc")
    return paginate(ctx, tags, lambda t: tag_json(ctx, project, repo, t))


def _find_tag(repo: ProjectRepository, name: str) -> RepoTag:
    tag = repo.tags.get(name)
    if tag is None:
        raise SandboxError.not_found("Tag")
    return tag


async def get_tag(ctx: Ctx) -> Any:
    project = find_project(ctx)
    repo = project_repository(ctx.store, project)
    return tag_json(ctx, project, repo, _find_tag(repo, ctx.path("tag_name")))


async def create_tag(ctx: Ctx) -> Any:
    project = find_project(ctx)
    ctx.params.require("tag_name", "ref")
    require_level(ctx, project, DEVELOPER)
    repo = project_repository(ctx.store, project)
    name = ctx.params.str("tag_name") or ""
    ref = ctx.params.str("ref") or ""
    message = ctx.params.str("message") or None
    if _BAD_NAME.search(name):
        raise SandboxError.message(405, "Tag name invalid")
    if name in repo.tags:
        raise SandboxError.message(405, f"Tag {name} already exists")
    commit = repo.resolve(ref)
    if commit is None:
        raise SandboxError.message(405, f"Target {ref} is invalid")
    tag = repo.tags[name] = RepoTag(name, commit.id, message,
                                    created_at=ctx.store.now() if message is not None else None)
    return json_response(tag_json(ctx, project, repo, tag), 201)


async def delete_tag(ctx: Ctx) -> Any:
    project = find_project(ctx)
    require_level(ctx, project, DEVELOPER)
    repo = project_repository(ctx.store, project)
    tag = _find_tag(repo, ctx.path("tag_name"))
    if tag.protected:
        require_level(ctx, project, MAINTAINER)
    del repo.tags[tag.name]
    return Response(status_code=204)


_TAGS = "/projects/{id}/repository/tags"

routes: list[Route] = [
    Route(_TAGS, endpoint(list_tags), methods=["GET"]),
    Route(_TAGS, endpoint(create_tag), methods=["POST"]),
    Route(_TAGS + "/{tag_name:path}", endpoint(get_tag), methods=["GET"]),
    Route(_TAGS + "/{tag_name:path}", endpoint(delete_tag), methods=["DELETE"]),
]
