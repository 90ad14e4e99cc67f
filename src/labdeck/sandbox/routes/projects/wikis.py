"""Project wikis (GitLab's API docs, "Project wikis"), as GitLab's `lib/api/wikis.rb` behaves:

- list (`with_content` adds `content`), read by URL-encoded slug (`docs%2Fsetup`): `404 Wiki Page Not Found`;
- create (`title` and `content` required, `format` one of markdown, rdoc, asciidoc, org): 201;
  a title taken answers 400 `Duplicate page: ...`;
- update: at least one of `content`, `title`, `format` (Grape's message otherwise); a new title keeps the
  page's directory unless it names one;
- delete: 204 (Maintainer); attachments: multipart `file` (required) and `branch` (default `main`), 201 with
  `file_name`, `file_path`, `branch` and `link` (`url`, `markdown`).

Reading needs read access to the project; writing needs Developer (30).
"""

from __future__ import annotations

import hashlib
from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import Response
from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.routes.projects.repository_tags import DEVELOPER, MAINTAINER
from labdeck.sandbox.seed.project_resources import WikiPage, seed_wikis, slug_for, wiki_data
from labdeck.sandbox.store import Project

FORMATS = ("markdown", "rdoc", "asciidoc", "org")
_IMAGE = (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".bmp")


def page_json(page: WikiPage, *, content: bool = True) -> dict[str, Any]:
    out: dict[str, Any] = {"format": page.format, "slug": page.slug, "title": page.title, "encoding": "UTF-8"}
    if content:
        out["content"] = page.content
    return out


def _pages(ctx: Ctx, project: Project) -> dict[str, WikiPage]:
    return wiki_data(ctx.store).pages.setdefault(project.id, {})


def _find(ctx: Ctx, project: Project) -> WikiPage:
    page = _pages(ctx, project).get(ctx.path("slug"))
    if page is None:
        raise SandboxError.not_found("Wiki Page")
    return page


def _duplicate() -> SandboxError:
    return SandboxError.message(400, "Duplicate page: A page with that title already exists")


async def list_pages(ctx: Ctx) -> Any:
    project = find_project(ctx)
    content = bool(ctx.params.bool("with_content", False))
    pages = sorted(_pages(ctx, project).values(), key=lambda p: p.slug)
    return [page_json(page, content=content) for page in pages]


async def get_page(ctx: Ctx) -> Any:
    project = find_project(ctx)
    return page_json(_find(ctx, project))


async def create_page(ctx: Ctx) -> Any:
    project = find_project(ctx)
    p = ctx.params
    missing = [name for name in ("content", "title") if p.data.get(name) is None]
    if missing:
        raise SandboxError.missing(*missing)
    fmt = p.choice("format", FORMATS, "markdown") or "markdown"
    require_level(ctx, project, DEVELOPER)
    title = (p.str("title") or "").strip()
    if not title:
        raise SandboxError.validation({"title": ["can't be blank"]})
    slug = slug_for(title)
    pages = _pages(ctx, project)
    if slug in pages:
        raise _duplicate()
    page = pages[slug] = WikiPage(slug, title.rsplit("/", 1)[-1], p.str("content") or "", fmt)
    return json_response(page_json(page), 201)


async def update_page(ctx: Ctx) -> Any:
    project = find_project(ctx)
    p = ctx.params
    if not any(name in p for name in ("content", "title", "format")):
        raise SandboxError(400, {"error": "content, title, format are missing, at least one parameter "
                                          "must be provided"})
    fmt = p.choice("format", FORMATS)
    require_level(ctx, project, DEVELOPER)
    page = _find(ctx, project)
    pages = _pages(ctx, project)
    title = p.str("title")
    if title is not None and title.strip():
        title = title.strip()
        directory = page.slug.rpartition("/")[0]
        full = title if "/" in title or not directory else f"{directory}/{title}"
        slug = slug_for(full)
        if slug != page.slug:
            if slug in pages:
                raise _duplicate()
            del pages[page.slug]
            page.slug = slug
            pages[slug] = page
        page.title = full.rsplit("/", 1)[-1]
    if "content" in p:
        page.content = p.str("content") or ""
    if fmt is not None:
        page.format = fmt
    return page_json(page)


async def delete_page(ctx: Ctx) -> Any:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    page = _find(ctx, project)
    del _pages(ctx, project)[page.slug]
    return Response(status_code=204)


async def upload_attachment(ctx: Ctx) -> Any:
    project = find_project(ctx)
    upload = ctx.params.data.get("file")
    if not isinstance(upload, UploadFile):
        if upload in (None, ""):
            raise SandboxError.missing("file")
        raise SandboxError.invalid("file")
    require_level(ctx, project, DEVELOPER)
    body = await upload.read()
    data = wiki_data(ctx.store)
    data.uploads += 1
    digest = hashlib.md5(body + str(data.uploads).encode(), usedforsecurity=False).hexdigest()
    name = (upload.filename or "file").rsplit("/", 1)[-1] or "file"
    path = f"uploads/{digest}/{name}"
    stem = name.rsplit(".", 1)[0]
    markdown = f"![{stem}]({path})" if name.lower().endswith(_IMAGE) else f"[{name}]({path})"
    branch = ctx.params.str("branch") or "main"
    return json_response({"file_name": name, "file_path": path, "branch": branch,
                          "link": {"url": path, "markdown": markdown}}, 201)


_WIKIS = "/projects/{id}/wikis"

seed = seed_wikis  # the area's seeding function

routes: list[Route] = [
    Route(_WIKIS, endpoint(list_pages), methods=["GET"]),
    Route(_WIKIS, endpoint(create_page), methods=["POST"]),
    Route(_WIKIS + "/attachments", endpoint(upload_attachment), methods=["POST"]),
    Route(_WIKIS + "/{slug:path}", endpoint(get_page), methods=["GET"]),
    Route(_WIKIS + "/{slug:path}", endpoint(update_page), methods=["PUT"]),
    Route(_WIKIS + "/{slug:path}", endpoint(delete_page), methods=["DELETE"]),
]
