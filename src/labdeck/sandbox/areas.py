"""The one list of sandbox areas. An area is a module in `routes/` with `routes: list[Route]` (paths
relative to `/api/v4`) and, optionally, `seed(store, ctx: SeedContext) -> None` that adds its data (keep
its records in `store.areas["<name>"]`, draw randomness only from `ctx.rng`). Add an area by adding its
module name to `AREA_MODULES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.routing import BaseRoute

AREA_MODULES: list[str] = [
    "instance",
    "projects",
    "groups",
    "group_projects",
    "group_members",
    "billable_members",
    "group_labels",
    "group_badges",
    "iterations",
    "ci_variables",
    "group_transfer",
    "moderation",
    "registry",
    "issues",
    "repository_tags",
    "wikis",
    "pages_domains",
    "error_tracking",
    "forks",
    "deployments",
    "environments",
]


@dataclass(frozen=True)
class Area:
    name: str
    routes: list[BaseRoute]
    seed: Callable[[Any, Any], None] | None


def load_areas() -> list[Area]:
    """Import every registered area module, in order (route order is match order)."""
    areas = []
    for name in AREA_MODULES:
        module = importlib.import_module(f"labdeck.sandbox.routes.{name}")
        areas.append(Area(name, list(module.routes), getattr(module, "seed", None)))
    return areas
