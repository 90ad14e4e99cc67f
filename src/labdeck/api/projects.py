"""The projects service: the projects listing read on demand (`GET /projects`, `window`: by keyset when
ordered by id, as GitLab documents, so deep pages cost the server as little as the first), one project,
and archiving. Paths come from the endpoint catalogue (`labdeck.domain.catalogue`); the per-project resources
(wikis, tags, Pages domains, error tracking, forks) have their own services beside it."""

from __future__ import annotations

import asyncio
from collections.abc import Iterable

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.api.models.projects import Project
from labdeck.api.windowed import FROM_SETTINGS, WindowedList
from labdeck.domain import catalogue as ep
from labdeck.domain.endpoints import Endpoint

PER_PAGE = 50
ProjectRef = int | str


def forget(client: ApiClient, endpoint: Endpoint, *values: object) -> None:
    """Drop the cached lists of the families a change through `endpoint` alters (the client already drops
    the mutated path's own family, however the path is encoded), on this client's instance."""
    client.cache.forget(endpoint, *values, instance=client.settings.base_url)


def project_rows() -> body.PageDecode | None:
    """How a listing page becomes projects: parsed from the bytes, or decoded for `parse_many`."""
    fast = fast_decoder(b.PROJECTS.model)
    return None if fast is None else body.page_decoder(fast.decode)


class ProjectsService:
    """Projects the signed-in user can see."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def window(self, *, search: str | None = None, order_by: str = "id", sort: str = "desc",
               max_rows: int | None = FROM_SETTINGS) -> WindowedList[Project]:
        """The listing read on demand (`api/windowed.py`). Ordered by id it is read by keyset
        (`pagination=keyset`, the `next` links followed: GitLab's only keyset order for projects, and the
        only way past its offset limit of 50,000 rows on `/projects`); other orders by page number."""
        params = {"order_by": order_by, "sort": sort, "search": search or None}
        if order_by == "id":
            params["pagination"] = "keyset"
        return WindowedList(self.client, ep.PROJECTS.path(), params,
                            b.PROJECTS.parse_clean,
                            decode=project_rows(), max_rows=max_rows)

    async def project(self, project: ProjectRef) -> Project:
        return await b.PROJECT.read(self.client, project)

    async def projects_by_id(self, ids: Iterable[int]) -> dict[int, Project]:
        """The projects of `ids` (each read once, concurrently within the client's limit); one that cannot
        be read (gone, hidden) is left out rather than failing the others."""
        wanted = sorted(set(ids))

        async def one(project_id: int) -> Project | None:
            try:
                return await self.project(project_id)
            except LabdeckError:
                return None

        found = await asyncio.gather(*(one(i) for i in wanted))
        return {i: p for i, p in zip(wanted, found, strict=True) if p is not None}

    async def set_archived(self, project: ProjectRef, archived: bool) -> Project:
        binding = b.PROJECT_ARCHIVE if archived else b.PROJECT_UNARCHIVE
        return binding.parse(await self.client.post_json(binding.path(project)))
