"""The project wiki service: pages (with or without content), one page by slug (a directory part is
encoded into the one path segment), create, update (title and/or content and/or format), delete, and
attachment uploads (multipart). Paths come from the endpoint catalogue."""

from __future__ import annotations

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.project_resources import WikiAttachment, WikiPage
from labdeck.api.projects import ProjectRef
from labdeck.domain import catalogue as ep


class WikiService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def pages(self, project: ProjectRef, *, with_content: bool = False,
                    refresh: bool = False) -> list[WikiPage]:
        return await b.PROJECT_WIKIS.read(self.client, project, params={"with_content": with_content or None},
                                          refresh=refresh)

    async def page(self, project: ProjectRef, slug: str) -> WikiPage:
        return await b.PROJECT_WIKI.read(self.client, project, slug)

    async def create(self, project: ProjectRef, title: str, content: str, *,
                     format: str = "markdown") -> WikiPage:
        data = await self.client.post_json(ep.PROJECT_WIKI_CREATE.path(project),
                                           {"title": title, "content": content, "format": format})
        return b.PROJECT_WIKI_CREATE.parse(data)

    async def update(self, project: ProjectRef, slug: str, *, title: str | None = None,
                     content: str | None = None, format: str | None = None) -> WikiPage:
        """Change at least one of `title`, `content`, `format` (`ValueError` when none is given)."""
        fields = (("title", title), ("content", content), ("format", format))
        body = {k: v for k, v in fields if v is not None}
        if not body:
            raise ValueError("give a title, content or format to update")
        data = await self.client.put_json(ep.PROJECT_WIKI_UPDATE.path(project, slug), body)
        return b.PROJECT_WIKI_UPDATE.parse(data)

    async def delete(self, project: ProjectRef, slug: str) -> None:
        await self.client.delete(ep.PROJECT_WIKI_DELETE.path(project, slug))

    async def upload_attachment(self, project: ProjectRef, file_name: str, content: bytes, *,
                                branch: str | None = None) -> WikiAttachment:
        """Upload a file to the wiki's uploads folder (on `branch`, default the wiki's default branch)."""
        data = await self.client.post_json(ep.PROJECT_WIKI_ATTACHMENT.path(project),
                                           data={"branch": branch} if branch else None,
                                           files={"file": (file_name, content)})
        return b.PROJECT_WIKI_ATTACHMENT.parse(data)
