"""The registry of areas labdeck can open: home lists them, `:name` jumps to them, the palette offers them.

Each area issue adds one `Area` here (name, title, description, screen factory). An area whose screen is
not built yet has `factory=None` and opens a screen that says so plainly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from textual.screen import Screen


@dataclass(frozen=True)
class AreaRequest:
    """What the caller asks an area to show: a saved view's query and scope, when opened from one."""

    query: str | None = None
    scope: str | None = None


ScreenFactory = Callable[[AreaRequest], "Screen[object]"]


@dataclass(frozen=True)
class Area:
    name: str
    title: str
    description: str
    factory: ScreenFactory | None = None

    @property
    def available(self) -> bool:
        return self.factory is not None


def _jobs(request: AreaRequest) -> Screen[object]:
    from labdeck.tui.screens.jobs import JobsScreen

    return JobsScreen()


def _log(request: AreaRequest) -> Screen[object]:
    from labdeck.tui.screens.request_log import RequestLogScreen

    return RequestLogScreen()


def _projects(request: AreaRequest) -> Screen[object]:
    from labdeck.tui.screens.projects import ProjectsScreen

    return ProjectsScreen()


AREAS: dict[str, Area] = {}


def register_area(area: Area) -> None:
    """Add or replace an area (an area issue replaces its placeholder entry with a real factory)."""
    AREAS[area.name] = area


for _area in (
    Area("groups", "Groups", "Groups and subgroups: members, labels, badges, variables, export"),
    Area("issues", "Issues", "Triage issues across the instance with the filter language"),
    Area("registry", "Registry", "Container registry: repositories, tags, interactive cleanup"),
    Area("deployments", "Deployments", "Deployments and environments, their frequency"),
    Area("users", "Users", "User moderation: approve, block, ban, deactivate"),
    Area("projects", "Projects", "Projects you can see, most recently active first", _projects),
    Area("jobs", "Jobs", "The job centre: long operations, their progress and results", _jobs),
    Area("log", "Request log", "Every request of this session: method, path, status, duration", _log),
):
    register_area(_area)


def find_area(name: str) -> Area | None:
    """The area called `name` (case-insensitive, a leading `:` allowed)."""
    return AREAS.get(name.strip().lstrip(":").lower())


def complete(prefix: str) -> list[str]:
    """Area names starting with `prefix`, in registry order."""
    wanted = prefix.strip().lstrip(":").lower()
    return [name for name in AREAS if name.startswith(wanted)]
