"""The access review's scope and fan-out (issue 36): the groups and projects a review covers, and one read per
group or project with as many workers as the client has concurrency slots, as the deployments board does
(`api/deploy_board.py`): each worker takes the next item, so every slot stays busy and the first items'
rows come after a few round trips; `on_rows` hears each item's rows as they arrive.

A scope is a group (its path: the group, its subgroups and all their projects, `GET /groups/:id/
descendant_groups` and `GET /groups/:id/projects?include_subgroups=true`) or the instance (`None`: every
group and project the caller sees, `GET /groups` and `GET /projects`; administrators see them all). Every
list goes through the client's list cache, so a refresh within its TTL costs no request; `refresh=True`
reads everything again. An item that answers an error (403, 404, a network failure) is named in
`unreadable` with why, never counted as one with nothing to show, and the review goes on without it.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Generic, Literal, TypeVar

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, LabdeckError
from labdeck.api.models.access import ScopeProject, ShareLink
from labdeck.api.models.base import parse_many
from labdeck.domain import catalogue as ep
from labdeck.domain.text import sanitize

R = TypeVar("R")
Kind = Literal["group", "project", "instance"]
INSTANCE: Final = "(instance)"  # how the instance is named where a path would be
# Called after each item with its rows, how many items are done and how many there are.
OnRows = Callable[[list[R], int, int], None]
_SCOPE_GROUPS: Final = {"order_by": "path", "sort": "asc"}
_SCOPE_PROJECTS: Final = {"include_subgroups": True, "with_shared": False, "order_by": "path", "sort": "asc"}


@dataclass(frozen=True)
class Place:
    """A group or a project of the scope: `path` its full path, `shares` the groups it is shared with."""

    kind: Literal["group", "project"]
    path: str
    id: int = 0
    shares: tuple[ShareLink, ...] = ()


@dataclass(frozen=True)
class Unreadable:
    """An item the review could not read (`path`: a group's or project's path, or `INSTANCE`), and why."""

    path: str
    what: str
    status: int | None
    message: str


@dataclass
class Scope:
    """What a review covers: `root` (None: the instance), its groups (the root first) and projects."""

    root: str | None
    groups: list[Place] = field(default_factory=list)
    projects: list[Place] = field(default_factory=list)

    @property
    def places(self) -> list[Place]:
        return [*self.groups, *self.projects]


def unreadable(path: str, what: str, error: LabdeckError) -> Unreadable:
    if isinstance(error, ApiError):
        return Unreadable(path, what, error.status, error.status_line()[:200])
    return Unreadable(path, what, None, sanitize(str(error))[:200])


async def group_shares(client: ApiClient, group: str, *, refresh: bool = False) -> tuple[ShareLink, ...]:
    """The groups `group` is shared with (`shared_with_groups` of `GET /groups/:id`), kept in the list cache
    as such (a view of its own: a refresh within the TTL reads nothing)."""
    path = ep.GROUP.path(group)
    params = {"with_projects": False}
    key = client.cache_key(path, params, view="shares")
    hit = None if refresh else client.cache.get(key)
    if hit is not None and hit[1]:
        cached: tuple[ShareLink, ...] = hit[0]
        return cached
    data = await client.get_json(path, params)
    raw = data.get("shared_with_groups") if isinstance(data, dict) else None
    shares = tuple(parse_many(ShareLink, raw)) if isinstance(raw, list) else ()
    client.cache.set(key, shares)
    return shares


async def read_scope(client: ApiClient, root: str | None, *, refresh: bool = False,
                     shares: bool = True) -> Scope:
    """The groups and projects of `root` (a group's full path) or of the instance (None); with `shares`,
    each group's shares (one read per group)."""
    if root is None:
        groups, projects = await asyncio.gather(
            b.GROUPS.read(client, params={**_SCOPE_GROUPS, "all_available": True}, refresh=refresh),
            b.INSTANCE_SCOPE_PROJECTS.read(client, params=None, refresh=refresh))
        group_places = [Place("group", g.full_path or str(g.id), g.id) for g in groups]
    else:
        descendants, projects = await asyncio.gather(
            b.GROUP_DESCENDANTS.read(client, root, params=_SCOPE_GROUPS, refresh=refresh),
            b.SCOPE_PROJECTS.read(client, root, params=_SCOPE_PROJECTS, refresh=refresh))
        group_places = [Place("group", root), *(Place("group", g.full_path or str(g.id), g.id)
                                                for g in descendants)]
    scope = Scope(root, group_places, [_project(p) for p in projects])
    if shares:
        found = await asyncio.gather(*(group_shares(client, g.path, refresh=refresh) for g in scope.groups),
                                     return_exceptions=True)
        scope.groups = [Place(g.kind, g.path, g.id, s if isinstance(s, tuple) else ())
                        for g, s in zip(scope.groups, found, strict=True)]
    return scope


def _project(project: ScopeProject) -> Place:
    return Place("project", project.path_with_namespace or str(project.id), project.id,
                 tuple(project.shared_with_groups or ()))


@dataclass
class FanOut(Generic[R]):
    """What a fan-out gave: each item's rows in the items' order, and the items it could not read."""

    rows: list[R] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    items: int = 0


Item = tuple[str, str, Callable[[], Awaitable[list[R]]]]  # (path, what, read)


async def fan_out(client: ApiClient, items: Sequence[Item[R]], on_rows: OnRows[R] | None = None) -> FanOut[R]:
    """Read every item with one worker per concurrency slot; an item's error is `unreadable`, never empty."""
    results: dict[int, list[R]] = {}
    failed: list[Unreadable] = []
    queue = iter(enumerate(items))
    done = 0

    async def worker() -> None:
        nonlocal done
        for index, (path, what, read) in queue:
            rows: list[R] = []
            try:
                rows = await read()
            except LabdeckError as error:
                failed.append(unreadable(path, what, error))
            else:
                results[index] = rows
            done += 1
            if on_rows is not None:
                on_rows(rows, done, len(items))

    slots = max(1, min(client.settings.concurrency, len(items)))
    await asyncio.gather(*(worker() for _ in range(slots)))
    failed.sort(key=lambda u: (u.path, u.what))
    return FanOut([row for i in range(len(items)) for row in results.get(i, ())], failed, len(items))
