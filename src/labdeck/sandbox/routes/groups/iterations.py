"""Iterations of groups and projects (GitLab's API docs, "Iterations"; state integers from the design
appendix: 1 upcoming, 2 started, 3 closed; `opened` is upcoming or started). A project's iterations are
those of its ancestor groups. The state follows the dates against the sandbox clock.

Records: `store.areas["iterations"]` is an `IterationsState`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

from starlette.routing import Route

from labdeck.sandbox.http import Ctx, endpoint, iso, paginate
from labdeck.sandbox.routes.groups.groups import authed_group
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.store import Store

AREA = "iterations"
UPCOMING, STARTED, CLOSED = 1, 2, 3
STATES = {"opened": {UPCOMING, STARTED}, "upcoming": {UPCOMING}, "started": {STARTED},
          "current": {STARTED}, "closed": {CLOSED}, "all": {UPCOMING, STARTED, CLOSED}}


@dataclass
class Iteration:
    id: int
    iid: int
    group_id: int
    title: str
    description: str
    start_date: date
    due_date: date
    created_at: datetime


@dataclass
class IterationsState:
    iterations: dict[int, Iteration] = field(default_factory=dict)


def state(store: Store) -> IterationsState:
    return store.area(AREA, IterationsState)


def add_iteration(store: Store, group_id: int, title: str, start: date, days: int,
                  description: str = "") -> Iteration:
    data = state(store)
    iid = 1 + sum(1 for it in data.iterations.values() if it.group_id == group_id)
    iteration = Iteration(store.next_id("iteration"), iid, group_id, title, description, start,
                          start + timedelta(days=days - 1), store.anchor - timedelta(days=120))
    data.iterations[iteration.id] = iteration
    return iteration


def seed(store: Store, ctx: Any) -> None:
    """Two-week sprints around today: one closed, one started and one upcoming in `acme`; a started and an
    upcoming one in `acme/platform`; a closed one in `opensource`."""
    today = store.anchor.date()
    plan = {"acme": [("Sprint 41", -21), ("Sprint 42", -7), ("Sprint 43", 7)],
            "acme/platform": [("Platform hardening", -3), ("Platform launch", 11)],
            "opensource": [("Release 1.0", -40)]}
    for path, sprints in plan.items():
        group = store.group_by_path(path)
        if group is not None:
            for title, offset in sprints:
                add_iteration(store, group.id, title, today + timedelta(days=offset), 14,
                              f"{title} of {group.full_name}")
    for group in list(store.groups.values()):  # generated organisations: last, current and next sprint
        if group.parent_id is None and group.full_path not in plan and group.full_path != "hidden-lab":
            first = ctx.rng.randint(-13, 0) - 14
            for number in range(3):
                add_iteration(store, group.id, f"Iteration {number + 1}",
                              today + timedelta(days=first + 14 * number), 14)


def state_of(iteration: Iteration, today: date) -> int:
    if iteration.start_date > today:
        return UPCOMING
    if iteration.due_date < today:
        return CLOSED
    return STARTED


def iteration_json(ctx: Ctx, iteration: Iteration) -> dict[str, Any]:
    group = ctx.store.groups[iteration.group_id]
    return {
        "id": iteration.id, "iid": iteration.iid, "sequence": iteration.iid, "group_id": iteration.group_id,
        "title": iteration.title, "description": iteration.description,
        "state": state_of(iteration, ctx.store.now().date()), "created_at": iso(iteration.created_at),
        "updated_at": iso(iteration.created_at), "start_date": iteration.start_date.isoformat(),
        "due_date": iteration.due_date.isoformat(),
        "web_url": f"{ctx.base}/groups/{group.full_path}/-/iterations/{iteration.id}",
    }


def _respond(ctx: Ctx, group_ids: list[int]) -> Any:
    p = ctx.params
    wanted = STATES[p.choice("state", STATES, "all") or "all"]
    search = (p.str("search") or "").lower()
    title = p.str("title")
    today = ctx.store.now().date()
    ids = set(group_ids)
    rows = [it for it in state(ctx.store).iterations.values()
            if it.group_id in ids and state_of(it, today) in wanted
            and (not search or search in it.title.lower()) and (title is None or it.title == title)]
    rows.sort(key=lambda it: (it.due_date, it.id))
    return paginate(ctx, rows, lambda it: iteration_json(ctx, it))


async def group_iterations(ctx: Ctx) -> Any:
    group = authed_group(ctx)
    p = ctx.params
    ids = ctx.store.ancestors(group.id) if p.bool("include_ancestors", True) else [group.id]
    if p.bool("include_descendants", False):
        ids += ctx.store.descendants(group.id)
    return _respond(ctx, ids)


async def project_iterations(ctx: Ctx) -> Any:
    ctx.require_user()
    project = find_project(ctx)
    if project.namespace_kind != "group":
        return _respond(ctx, [])
    ancestors = ctx.store.ancestors(project.namespace_id)
    include = ctx.params.bool("include_ancestors", True)
    return _respond(ctx, ancestors if include else ancestors[:1])


routes: list[Route] = [
    Route("/groups/{id}/iterations", endpoint(group_iterations), methods=["GET"]),
    Route("/projects/{id}/iterations", endpoint(project_iterations), methods=["GET"]),
]
