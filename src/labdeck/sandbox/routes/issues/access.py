"""Who reaches an issue of the sandbox: the issue of a route's path (404 for one the caller may not see) and
the rule for changing it (the author, or Planner and up). Shared by the issue routes and time tracking."""

from __future__ import annotations

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx
from labdeck.sandbox.routes.issues.listing import PLANNER, can_see
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.issues import Issue, issues_data
from labdeck.sandbox.store import Project


def issue_of(ctx: Ctx) -> tuple[Project, Issue]:
    """The project and the issue of the path, or 404 (also for an issue the caller may not see)."""
    project = find_project(ctx)
    try:
        iid = int(ctx.path("issue_iid"))
    except ValueError:
        raise SandboxError.invalid("issue_iid") from None
    issue = issues_data(ctx.store).by_iid(project.id, iid)
    if issue is None or not can_see(ctx, issue):
        raise SandboxError.not_found("Issue")
    return project, issue


def level_in(ctx: Ctx, project: Project) -> int:
    """The caller's access level in `project` (100: an administrator)."""
    user = ctx.require_user()
    return 100 if user.is_admin else ctx.store.project_levels(user.id).get(project.id, 0)


def require_editor(ctx: Ctx, project: Project, issue: Issue) -> None:
    """403 unless the caller is the author or Planner (15) and up."""
    user = ctx.require_user()
    if level_in(ctx, project) < PLANNER and user.id != issue.author_id:
        raise SandboxError.forbidden()
