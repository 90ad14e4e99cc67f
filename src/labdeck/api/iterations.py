"""The iterations service: iterations of a group (and its ancestor groups), by state
(`opened` is upcoming or started), title search and with or without ancestors. Paths come from
the endpoint catalogue (`labdeck.domain.catalogue`), read through its binding."""

from __future__ import annotations

from typing import Literal

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupRef
from labdeck.api.models.iterations import Iteration

IterationFilter = Literal["opened", "upcoming", "started", "closed", "all"]


class IterationsService:
    """Iterations on one instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def group_iterations(self, group: GroupRef, *, state: IterationFilter | None = None,
                               search: str | None = None, include_ancestors: bool | None = None,
                               refresh: bool = False) -> list[Iteration]:
        params = {"state": state, "search": search or None, "include_ancestors": include_ancestors}
        return await b.GROUP_ITERATIONS.read(self.client, group, params=params, refresh=refresh)
