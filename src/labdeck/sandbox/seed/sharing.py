"""Projects shared with groups, kept in one place (GitLab's `project_group_links`): a group's
`/groups/:id/projects/shared` (and `with_shared`), a project's `shared_with_groups` and the protected
environments' group rule ("the project must be shared with the group") all read these records.

Records: `store.areas["project_shares"]` is a `Shares` (project id -> group id -> access level).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from labdeck.sandbox.store import Store

AREA = "project_shares"
DEVELOPER = 30


@dataclass
class Shares:
    by_project: dict[int, dict[int, int]] = field(default_factory=dict)  # project -> group -> level


def shares(store: Store) -> Shares:
    return store.area(AREA, Shares)


def share(store: Store, project_id: int, group_id: int, access_level: int = DEVELOPER) -> None:
    """Share the project with the group (or change the level of an existing share)."""
    shares(store).by_project.setdefault(project_id, {})[group_id] = access_level


def groups_of(store: Store, project_id: int) -> dict[int, int]:
    """The groups a project is shared with, and the access level each one got."""
    return dict(shares(store).by_project.get(project_id, {}))


def projects_shared_with(store: Store, group_id: int) -> list[int]:
    """The ids of the projects shared with a group, in the order they were shared."""
    return [pid for pid, groups in shares(store).by_project.items() if group_id in groups]


def shared_with_groups_json(store: Store, project_id: int) -> list[dict[str, Any]]:
    """A project's `shared_with_groups`, as GitLab's project entity shows it."""
    out = []
    for group_id, level in groups_of(store, project_id).items():
        group = store.groups.get(group_id)
        if group is not None:
            out.append({"group_id": group.id, "group_name": group.name, "group_full_path": group.full_path,
                        "group_access_level": level, "expires_at": None})
    return out


def seed_shares(store: Store) -> None:
    """`opensource/labdeck` (public) and `hidden-lab/secrets` (private) shared with `acme`;
    `acme/platform/api-gateway` with `opensource` (a group rule for its protected environments)."""
    for path, group_path in (("opensource/labdeck", "acme"), ("hidden-lab/secrets", "acme"),
                             ("acme/platform/api-gateway", "opensource")):
        project, group = store.project_by_path(path), store.group_by_path(group_path)
        if project is not None and group is not None:
            share(store, project.id, group.id)
