"""The groups service: group listings (`GET /groups`, subgroups, descendant groups) with every parameter
of GitLab's API docs, one group, group projects and projects shared to a group. `window` reads `GET /groups`
on demand (`api/windowed.py`), asking for keyset pagination as GitLab documents it (`order_by=name`,
`sort=asc`); GitLab grants it to anonymous callers only and pages by number otherwise, which the window
follows either way.

Paths come from the endpoint catalogue (`labdeck.domain.catalogue`). Listings go through the client's list
cache (`refresh=True` always fetches).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.groups import Group
from labdeck.api.models.projects import Project
from labdeck.api.windowed import FROM_SETTINGS, WindowedList

GroupRef = int | str
Progress = Callable[[int, int | None], None]
GroupOrder = Literal["name", "path", "id"]
ProjectOrder = Literal["id", "name", "path", "created_at", "updated_at", "last_activity_at", "similarity"]


@dataclass(frozen=True)
class GroupQuery:
    """Parameters shared by the three group listings (None leaves the server's default)."""

    search: str | None = None
    skip_groups: Sequence[int] = ()
    all_available: bool | None = None
    order_by: GroupOrder | None = None
    sort: Literal["asc", "desc"] | None = None
    statistics: bool | None = None
    with_custom_attributes: bool | None = None
    owned: bool | None = None
    min_access_level: int | None = None
    top_level_only: bool | None = None  # GET /groups only
    custom_attributes: Mapping[str, str] = field(default_factory=dict)  # GET /groups only

    def params(self, *, top: bool) -> dict[str, Any]:
        out: dict[str, Any] = {
            "search": self.search or None, "skip_groups": list(self.skip_groups) or None,
            "all_available": self.all_available, "order_by": self.order_by, "sort": self.sort,
            "statistics": self.statistics, "with_custom_attributes": self.with_custom_attributes,
            "owned": self.owned, "min_access_level": self.min_access_level,
        }
        if top:
            out["top_level_only"] = self.top_level_only
            out["custom_attributes"] = dict(self.custom_attributes) or None
        return {k: v for k, v in out.items() if v is not None}


@dataclass(frozen=True)
class ProjectQuery:
    """Parameters of the group project listings (None leaves the server's default)."""

    archived: bool | None = None
    visibility: Literal["public", "internal", "private"] | None = None
    order_by: ProjectOrder | None = None
    sort: Literal["asc", "desc"] | None = None
    search: str | None = None
    simple: bool | None = None
    owned: bool | None = None  # /projects only
    starred: bool | None = None
    with_issues_enabled: bool | None = None
    with_merge_requests_enabled: bool | None = None
    with_shared: bool | None = None  # /projects only
    include_subgroups: bool | None = None  # /projects only
    min_access_level: int | None = None
    with_custom_attributes: bool | None = None
    with_security_reports: bool | None = None  # /projects only
    statistics: bool | None = None  # administrators: each project's `statistics` (storage sizes)

    def params(self, *, shared: bool) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__dataclass_fields__}
        if self.search == "":
            out["search"] = None
        if shared:
            for name in ("owned", "with_shared", "include_subgroups", "with_security_reports", "statistics"):
                out.pop(name)
            if self.order_by == "similarity":
                raise ValueError("order_by=similarity applies to a group's own projects only")
        return {k: v for k, v in out.items() if v is not None}


class GroupsService:
    """Group listings and group projects on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def list_groups(self, query: GroupQuery | None = None, *, refresh: bool = False,
                          on_progress: Progress | None = None) -> list[Group]:
        """`GET /groups`: every group matching `query` that the caller may see."""
        params = (query or GroupQuery()).params(top=True)
        return await b.GROUPS.read(self.client, params=params, refresh=refresh, on_progress=on_progress)

    def window(self, query: GroupQuery | None = None, *, per_page: int = 100,
               max_rows: int | None = FROM_SETTINGS) -> WindowedList[Group]:
        """`GET /groups` read on demand; by keyset (its `next` links followed) where the server grants it
        (GitLab: `order_by=name`, `sort=asc`, anonymous callers), else by page number."""
        params = (query or GroupQuery()).params(top=True)
        if params.get("order_by", "name") == "name" and params.get("sort", "asc") == "asc":
            params.update(pagination="keyset", order_by="name", sort="asc")
        return WindowedList(self.client, b.GROUPS.path(), params, b.GROUPS.parse, per_page=per_page,
                            max_rows=max_rows)

    def top_level_window(self, *, all_available: bool | None = None,
                         per_page: int = 100) -> WindowedList[Group]:
        """The roots of the group tree, read on demand (a page at a time, by name)."""
        return self.window(GroupQuery(top_level_only=True, all_available=all_available, order_by="name"),
                           per_page=per_page, max_rows=2 * per_page)  # the tree holds the rows

    def subgroups_window(self, group: GroupRef, *, per_page: int = 100) -> WindowedList[Group]:
        """`GET /groups/:id/subgroups` read on demand: a group of the tree opened a page at a time."""
        return WindowedList(self.client, b.GROUP_SUBGROUPS.path(group), GroupQuery().params(top=False),
                            b.GROUP_SUBGROUPS.parse, per_page=per_page, max_rows=2 * per_page)

    async def subgroups(self, group: GroupRef, query: GroupQuery | None = None, *,
                        refresh: bool = False) -> list[Group]:
        """`GET /groups/:id/subgroups`: the visible direct subgroups."""
        params = (query or GroupQuery()).params(top=False)
        return await b.GROUP_SUBGROUPS.read(self.client, group, params=params, refresh=refresh)

    async def get_group(self, group: GroupRef, *, statistics: bool = False) -> Group:
        """One group (without its project list)."""
        params = {"with_projects": False, "statistics": True if statistics else None}
        return await b.GROUP.read(self.client, group, params=params)

    async def projects(self, group: GroupRef, query: ProjectQuery | None = None, *,
                       refresh: bool = False, on_progress: Progress | None = None) -> list[Project]:
        """`GET /groups/:id/projects` (shared projects included unless `with_shared=False`)."""
        params = (query or ProjectQuery()).params(shared=False)
        return await b.GROUP_PROJECTS.read(self.client, group, params=params, refresh=refresh,
                                           on_progress=on_progress)
