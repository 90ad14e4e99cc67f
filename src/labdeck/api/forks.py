"""The forks service: fork a project (into the personal namespace, or one given by `namespace_id` or
`namespace_path`: labdeck never sends the deprecated `namespace`), follow the new project's
`import_status`, and create or delete a fork relationship (a project's forks are read through their
binding, `bindings.PROJECT_FORKS`, with the filters the catalogue declares). Paths come from the endpoint
catalogue."""

from __future__ import annotations

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.errors import NotModified
from labdeck.api.models.projects import Project
from labdeck.api.projects import ProjectRef, forget
from labdeck.domain import catalogue as ep

# `none` is what a project that was never imported shows: a fork done before anyone looked.
IMPORT_DONE = frozenset({"finished", "failed", "none"})


def import_done(project: Project) -> bool:
    """True once the fork's import has finished or failed."""
    return (project.import_status or "none") in IMPORT_DONE


class ForksService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def fork(self, project: ProjectRef, *, namespace_id: int | None = None,
                   namespace_path: str | None = None, name: str | None = None, path: str | None = None,
                   visibility: str | None = None, branches: str | None = None,
                   description: str | None = None, mr_default_target_self: bool | None = None) -> Project:
        """Start a fork (201 with the new project, its `import_status` still pending); `Conflict` (409)
        when the name or path is taken in the target namespace."""
        body = {"namespace_id": namespace_id, "namespace_path": namespace_path, "name": name, "path": path,
                "visibility": visibility, "branches": branches, "description": description,
                "mr_default_target_self": mr_default_target_self}
        data = await self.client.post_json(ep.PROJECT_FORK.path(project),
                                           {k: v for k, v in body.items() if v is not None})
        forget(self.client, ep.PROJECT_FORK, project)
        return b.PROJECT_FORK.parse(data)

    async def import_status(self, project_id: int) -> Project:
        """The fork as it is now (poll until `import_done`)."""
        return await b.PROJECT.read(self.client, int(project_id))

    async def create_relationship(self, project: ProjectRef, forked_from_id: int) -> Project:
        """Mark `project` as a fork of `forked_from_id` (administrators and owners)."""
        data = await self.client.post_json(ep.PROJECT_FORK_RELATION.path(project, forked_from_id))
        forget(self.client, ep.PROJECT_FORK_RELATION, project, forked_from_id)
        return b.PROJECT_FORK_RELATION.parse(data)

    async def delete_relationship(self, project: ProjectRef) -> bool:
        """Remove the fork relationship; False when the project was not a fork (304)."""
        try:
            await self.client.delete(ep.PROJECT_FORK_RELATION_DELETE.path(project))
        except NotModified:
            return False
        return True
