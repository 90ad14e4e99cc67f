"""The one list of sandbox areas. An area is a module in `routes/` with `routes: list[Route]` (paths
relative to `/api/v4`) and, optionally, `ROOT_ROUTES` (paths from the server's root, such as `/api/graphql`)
and `seed(store, ctx: SeedContext) -> None` that adds its data (keep its records in `store.areas["<name>"]`,
draw randomness only from `ctx.rng`). Add an area by adding its
name and module to `AREA_MODULES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.routing import BaseRoute

AREA_MODULES: dict[str, str] = {  # area name (it also names the area's seed stream) -> module in routes/
    "instance": "instance",
    "application_settings": "application_settings",
    "projects": "projects.projects",
    "project_archive": "projects.archive",
    "groups": "groups.groups",
    "group_projects": "groups.projects",
    "group_members": "groups.members",
    "billable_members": "groups.billable_members",
    "group_labels": "groups.labels",
    "group_badges": "groups.badges",
    "iterations": "groups.iterations",
    "ci_variables": "ci_variables",
    "group_transfer": "groups.transfer",
    "moderation": "moderation",
    "registry": "registry",
    "cleanup_policy": "cleanup_policy",  # after the registry: its seed adds a repository
    "issues": "issues.issues",
    "scoped_names": "issues.scoped_names",
    "repository_tags": "projects.repository_tags",
    "repository_branches": "projects.repository_branches",
    "wikis": "projects.wikis",
    "pages_domains": "pages_domains",
    "error_tracking": "projects.error_tracking",
    "forks": "projects.forks",
    "deployments": "deployments.deployments",
    "environments": "deployments.environments",
    "protected_environments": "deployments.protected",
    "protected_environment_update": "deployments.protected_update",
    "graphql": "graphql",
    "access_tokens": "access_tokens",  # records seeded after the fleet (`seed/access.py`)
    "user_memberships": "user_memberships",
}


@dataclass(frozen=True)
class Area:
    name: str
    routes: list[BaseRoute]
    seed: Callable[[Any, Any], None] | None
    root_routes: tuple[BaseRoute, ...] = ()


def load_areas() -> list[Area]:
    """Import every registered area module, in order (route order is match order)."""
    areas = []
    for name, module_name in AREA_MODULES.items():
        module = importlib.import_module(f"labdeck.sandbox.routes.{module_name}")
        areas.append(Area(name, list(module.routes), getattr(module, "seed", None),
                          tuple(getattr(module, "ROOT_ROUTES", ()))))
    return areas
