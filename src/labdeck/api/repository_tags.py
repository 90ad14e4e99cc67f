"""The repository tags service: one tag, create (lightweight, or annotated with a message) and delete (the
listing is read through its binding, `bindings.PROJECT_TAGS`: `order_by` name or updated, `sort`,
`search` with `^term` and `term$`). A refused creation comes
back as the server's 405 with its message (`MethodNotAllowed.message`). Paths come from the endpoint
catalogue (`labdeck.domain.catalogue`), models from the bindings (`labdeck.api.bindings`)."""

from __future__ import annotations

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.project_resources import RepositoryTag
from labdeck.api.projects import ProjectRef
from labdeck.domain import catalogue as ep


class TagsService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def tag(self, project: ProjectRef, name: str) -> RepositoryTag:
        return await b.PROJECT_TAG.read(self.client, project, name)

    async def create(self, project: ProjectRef, name: str, ref: str, *,
                     message: str | None = None) -> RepositoryTag:
        """A lightweight tag, or an annotated one when `message` is given."""
        body = {"tag_name": name, "ref": ref, **({"message": message} if message else {})}
        data = await self.client.post_json(ep.PROJECT_TAG_CREATE.path(project), body)
        return b.PROJECT_TAG_CREATE.parse(data)

    async def delete(self, project: ProjectRef, name: str) -> None:
        await self.client.delete(ep.PROJECT_TAG_DELETE.path(project, name))
