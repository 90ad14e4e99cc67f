"""The registry of areas labdeck can open: home lists them, `:name` jumps to them, the palette offers them.

Each area issue adds one `Area` here (name, title, description, screen factory). The factory is a callable
or a lazy `"module:function"` reference (so the registry imports no screen). An area whose screen is not
built yet has `factory=None` and opens a screen that says so plainly. `admin_only` areas are shown to
administrators only.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labdeck.domain import catalogue

_PROJECTS, _GROUPS = catalogue.PROJECTS.template, catalogue.GROUPS.template

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
    factory: ScreenFactory | str | None = None
    admin_only: bool = False
    # The cache families (catalogue list paths, `domain/catalogue.py`) the area's lists show: a change to
    # one of them (an undo from the journal) re-reads the area's open screens (`bulk.refresh_lists`).
    lists: tuple[str, ...] = ()

    @property
    def available(self) -> bool:
        return self.factory is not None

    def open(self, request: AreaRequest) -> Screen[object]:
        """Build the area's screen (importing a lazy `"module:function"` factory on first use)."""
        factory = self.factory
        if isinstance(factory, str):
            module, _, function = factory.partition(":")
            factory = getattr(importlib.import_module(module), function)
        if factory is None:
            raise LookupError(f"area {self.name} has no screen")
        return factory(request)


def _tasks(request: AreaRequest) -> Screen[object]:
    from labdeck.tui.screens.shell.jobs import JobsScreen

    return JobsScreen()


def _log(request: AreaRequest) -> Screen[object]:
    from labdeck.tui.screens.shell.request_log import RequestLogScreen

    return RequestLogScreen()


AREAS: dict[str, Area] = {}
# Former names that still open their area (not offered by completion): labdeck's own background work was
# called "jobs", which an operator reads as GitLab CI jobs.
ALIASES: dict[str, str] = {"jobs": "tasks"}


def register_area(area: Area) -> None:
    """Add or replace an area (an area issue replaces its placeholder entry with a real factory)."""
    AREAS[area.name] = area


for _area in (
    Area("overview", "Overview", "What needs attention on this instance right now",
         "labdeck.tui.screens.shell.overview:open_overview"),
    Area("groups", "Groups", "Groups and subgroups: members, labels, badges, variables, export",
         "labdeck.tui.screens.groups.groups:open_groups", lists=(_GROUPS,)),
    Area("issues", "Issues", "Triage issues across the instance with the filter language",
         "labdeck.tui.screens.issues.issues:open_issues", lists=(catalogue.ISSUES.template, _PROJECTS)),
    Area("registry", "Registry", "Container registry: repositories, tags, interactive cleanup",
         "labdeck.tui.screens.registry.registry:open_registry", lists=(_PROJECTS, _GROUPS)),
    Area("deployments", "Deployments", "Deployments and environments, their frequency",
         "labdeck.tui.screens.deployments.deployments:open_deployments", lists=(_PROJECTS,)),
    Area("users", "Users", "User moderation: approve, block, ban, deactivate (administrators)",
         "labdeck.tui.screens.users.users:open_users", admin_only=True, lists=(catalogue.USERS.template,)),
    Area("variables", "Instance variables", "Instance CI/CD variables: add, edit, delete (administrators)",
         "labdeck.tui.screens.admin.instance_variables:open_instance_variables", admin_only=True,
         lists=(catalogue.INSTANCE_VARIABLES.template,)),
    Area("pages", "Pages domains", "Every Pages domain and its certificate expiry (administrators)",
         "labdeck.tui.screens.admin.pages_domains:open_pages_admin", admin_only=True),
    Area("projects", "Projects", "Projects you can see, most recently active first",
         "labdeck.tui.screens.projects.projects:open_projects", lists=(_PROJECTS,)),
    Area("tasks", "Tasks", "labdeck's own background tasks (exports, forks, bulk changes): progress, results",
         _tasks),
    Area("log", "Request log", "Every request of this session: method, path, status, duration", _log),
    Area("access", "Access review", "Members, CI/CD variables and tokens across a group or the instance",
         "labdeck.tui.screens.access.access:open_access",
         lists=(catalogue.PERSONAL_ACCESS_TOKENS.template,)),
    Area("journal", "Journal", "Every change labdeck made on this instance, and its undo (u)",
         "labdeck.tui.screens.shell.journal:open_journal"),
):
    register_area(_area)


def find_area(name: str) -> Area | None:
    """The area called `name` or one of its former names (`ALIASES`; case-insensitive, a leading `:`
    allowed)."""
    wanted = name.strip().lstrip(":").lower()
    return AREAS.get(ALIASES.get(wanted, wanted))


def alias_note(typed: str) -> str:
    """`:jobs is an alias of :tasks` for each alias that `typed` (a prefix, as in the jump prompt; empty:
    every alias) begins; else empty."""
    wanted = typed.strip().lstrip(":").lower()
    return "  ".join(f":{alias} is an alias of :{name}" for alias, name in ALIASES.items()
                     if alias.startswith(wanted))


def admin_only_message(area: Area) -> str:
    """What a user who is not an administrator reads when asking for an administrators' area."""
    return f"{area.title} (:{area.name}) is for administrators only"


def shown_areas(is_admin: bool, allowed: Callable[[Area], bool] | None = None) -> list[Area]:
    """The areas this user sees, in registry order (administrators also see the admin-only ones); `allowed`
    (see `tui/capabilities.py`) leaves out what the instance or the token cannot reach."""
    return [area for area in AREAS.values()
            if (is_admin or not area.admin_only) and (allowed is None or allowed(area))]


def complete(prefix: str, is_admin: bool = True, allowed: Callable[[Area], bool] | None = None) -> list[str]:
    """Names of the shown areas starting with `prefix`, in registry order, then those with an alias that
    does (`jo` gives `journal`, then `tasks` for `jobs`), so tab and the prompt's suggestion agree."""
    wanted = prefix.strip().lstrip(":").lower()
    shown = [area.name for area in shown_areas(is_admin, allowed)]
    named = [name for name in shown if name.startswith(wanted)]
    aliased = {name for alias, name in ALIASES.items() if alias.startswith(wanted)}
    return named + [name for name in shown if name in aliased and name not in named]
