"""The labels of a project and the milestones of a group, as GitLab lists them (its API docs, "Labels" and
"Group milestones"): what issue filters and forms name, and what labdeck completes.

- `GET /projects/:id/labels`: the project's labels (the issues area's labels, which every sandbox project
  has) and, with `include_ancestor_groups` (the default), the labels of the groups above it; `search` matches
  the title or the description, case-insensitively.
- `GET /groups/:id/milestones`: the group's own milestones (the sandbox seeds none) and, with
  `include_descendants` (GitLab 16.7), those of its subgroups and of the projects in them; `search`
  (title or description), `title` (exact), `state` (`active`, `closed`).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.sandbox.http import Ctx, endpoint, paginate
from labdeck.sandbox.routes.groups.groups import find_group
from labdeck.sandbox.routes.groups.labels import label_json, label_matches, project_label_json, project_labels
from labdeck.sandbox.routes.groups.labels import state as group_labels
from labdeck.sandbox.routes.issues.shapes import milestone_json
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.issues import issues_data


async def list_project_labels(ctx: Ctx) -> Any:
    project = find_project(ctx)
    p = ctx.params
    search = (p.str("search") or "").lower()
    rows: list[Any] = [project_label_json(lb) for lb in project_labels(ctx, [project.id])
                       if label_matches(search, lb.name, lb.description)]
    if project.namespace_kind == "group" and p.bool("include_ancestor_groups", True):
        above = set(ctx.store.ancestors(project.namespace_id))
        user_id = ctx.user.id if ctx.user else None
        labels = sorted(group_labels(ctx.store).labels.values(), key=lambda lb: (lb.title.lower(), lb.id))
        rows += [label_json(lb, user_id, counts=False) for lb in labels
                 if lb.group_id in above and label_matches(search, lb.title, lb.description)]
    return paginate(ctx, rows)


async def list_group_milestones(ctx: Ctx) -> Any:
    group = find_group(ctx)
    p = ctx.params
    state = p.choice("state", ("active", "closed"))
    title, search = p.str("title"), (p.str("search") or "").lower()
    rows = []
    if p.bool("include_descendants"):
        store = ctx.store
        by_namespace = store.projects_by_namespace()
        ids = {pid for gid in (group.id, *store.descendants(group.id))
               for pid in by_namespace.get(("group", gid), [])
               if store.can_read_project(ctx.user, store.projects[pid])}
        rows = [m for m in issues_data(store).milestones.values() if m.project_id in ids
                and (state is None or m.state == state) and (title is None or m.title == title)
                and (not search or search in m.title.lower() or search in m.description.lower())]
    rows.sort(key=lambda m: m.id, reverse=True)
    return paginate(ctx, rows, lambda m: milestone_json(ctx, m))


routes: list[Route] = [
    Route("/projects/{id}/labels", endpoint(list_project_labels), methods=["GET"]),
    Route("/groups/{id}/milestones", endpoint(list_group_milestones), methods=["GET"]),
]
