"""Repository branches (GitLab's `doc/api/branches.md`, `lib/api/branches.rb`): `GET
/projects/:id/repository/branches`, sorted by name, paginated, each branch as GitLab's `Branch` entity
(`lib/api/entities/branch.rb`):

- `merged`: merged into the default branch, as `Repository#merged_to_root_ref?` decides (its commit is an
  ancestor of the default branch's head and not that head: the default branch itself is never merged);
- `protected`, `developers_can_push`, `developers_can_merge`: the default branch is protected as GitLab
  protects it by default (fully: only Maintainers push or merge); other branches are not protected, and no
  protection rule lets developers in;
- `can_push`: the caller may push (`Gitlab::UserAccess#can_push_to_branch?`): Developers to an unprotected
  branch, Maintainers to a protected one, administrators always, anonymous callers never;
- `default`, `web_url` (`project_tree_url`), `commit` (the `Commit` entity).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.sandbox.http import Ctx, endpoint, paginate
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.git_history import ProjectRepository, project_repository
from labdeck.sandbox.shapes import commit_json
from labdeck.sandbox.store import Project

DEVELOPER, MAINTAINER = 30, 40


def _ancestors(repo: ProjectRepository, commit_id: str) -> set[str]:
    """`commit_id` and every commit it descends from."""
    seen: set[str] = set()
    todo = [commit_id]
    while todo:
        current = todo.pop()
        if current in seen or current not in repo.commits:
            continue
        seen.add(current)
        todo.extend(repo.commits[current].parent_ids)
    return seen


def branch_json(ctx: Ctx, project: Project, repo: ProjectRepository, name: str, level: int,
                root: set[str]) -> dict[str, Any]:
    """GitLab's `Branch` entity for the branch `name`, seen by a caller of access `level` (administrators:
    above every level) in a repository whose default branch holds the commits `root`."""
    commit_id = repo.branches[name]
    head = repo.branches.get(project.default_branch)
    protected = name == project.default_branch
    web = f"{ctx.base}/{project.path_with_namespace}"
    return {"name": name, "commit": commit_json(repo.commits[commit_id], web),
            "merged": commit_id != head and commit_id in root, "protected": protected,
            "developers_can_push": False, "developers_can_merge": False,
            "can_push": level >= (MAINTAINER if protected else DEVELOPER),
            "default": name == project.default_branch, "web_url": f"{web}/-/tree/{name}"}


async def list_branches(ctx: Ctx) -> Any:
    project = find_project(ctx)
    repo = project_repository(ctx.store, project)
    user = ctx.user
    level = (0 if user is None else 100 if user.is_admin
             else ctx.store.project_levels(user.id).get(project.id, 0))
    head = repo.branches.get(project.default_branch)
    root = _ancestors(repo, head) if head is not None else set()
    names = sorted(repo.branches)
    return paginate(ctx, names, lambda name: branch_json(ctx, project, repo, name, level, root))


routes: list[Route] = [
    Route("/projects/{id}/repository/branches", endpoint(list_branches), methods=["GET"]),
]
