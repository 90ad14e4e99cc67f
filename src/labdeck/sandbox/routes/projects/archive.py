"""Archiving a project: `POST /projects/:id/archive` and `POST /projects/:id/unarchive`, as GitLab serves
them (lib/api/projects.rb).

An anonymous caller is refused first (`authenticate_non_get!`: 401). Both then find the project as every
project route does (`user_project`: 404 `{"message":"404 Project Not
Found"}` for a project the caller cannot see or that does not exist), then `authorize!(:archive_project,
user_project)`: 403 `{"message":"403 Forbidden"}` without that ability, which only `owner_access` gives
(app/policies/project_policy.rb: `rule { owner | admin }.enable :owner_access`, and `archive_project` under
`rule { can?(:owner_access) }`): an administrator, the owner of a personal project, or an Owner of the project
(a direct Owner, or an Owner of its group or of a group above it). A Maintainer is refused. The answer is the
project as `Entities::Project` (without the `permissions` of `ProjectWithAccess`) with status 201, whatever
its state was before (archiving an archived project changes nothing and answers the same). The listings
show `archived` and filter on it (`routes/projects/projects.py`, `routes/groups/projects.py`).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.shapes import project_json
from labdeck.sandbox.store import Project, Store, User

OWNER = 50


def may_archive(store: Store, user: User, project: Project) -> bool:
    """GitLab's `archive_project` ability: `owner_access` (administrator, personal project's owner, Owner)."""
    if user.is_admin:
        return True
    if project.namespace_kind == "user" and project.namespace_id == user.namespace_id:
        return True
    return store.project_levels(user.id).get(project.id, 0) >= OWNER


def _set_archived(archived: bool) -> Any:
    async def handler(ctx: Ctx) -> Any:
        user = ctx.require_user()  # `authenticate_non_get!` comes first: 401 for anyone anonymous
        project = find_project(ctx)
        if not may_archive(ctx.store, user, project):
            raise SandboxError.forbidden()
        if project.archived != archived:
            project.archived = archived
            project.updated_at = ctx.store.now()
            ctx.store.touch()
        return json_response(project_json(ctx.store, project, ctx.base, admin=ctx.is_admin), 201)
    return handler


routes: list[Route] = [
    Route("/projects/{id}/archive", endpoint(_set_archived(True)), methods=["POST"]),
    Route("/projects/{id}/unarchive", endpoint(_set_archived(False)), methods=["POST"]),
]
