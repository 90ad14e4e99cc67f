"""The iterations service: iterations of a group (and its ancestor groups), by state
(`opened` is upcoming or started), title search and with or without ancestors. Paths come from
the endpoint catalogue (`labdeck.domain.catalogue`)."""

from __future__ import annotations

from typing import Literal

from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupRef
from labdeck.api.models.catalogue import read_many
from labdeck.api.models.iterations import Iteration
from labdeck.domain import catalogue as ep
from labdeck.domain.endpoints import EndpointPath

IterationFilter = Literal["opened", "upcoming", "started", "closed", "all"]


class IterationsService:
    """Iterations on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def _list(self, path: EndpointPath, state: IterationFilter | None, search: str | None,
                    include_ancestors: bool | None, refresh: bool) -> list[Iteration]:
        params = {"state": state, "search": search or None, "include_ancestors": include_ancestors}
        return read_many(path.endpoint, await self.client.get_list(path, params, refresh=refresh))

    async def group_iterations(self, group: GroupRef, *, state: IterationFilter | None = None,
                               search: str | None = None, include_ancestors: bool | None = None,
                               refresh: bool = False) -> list[Iteration]:
        return await self._list(ep.GROUP_ITERATIONS.path(group), state, search, include_ancestors, refresh)
