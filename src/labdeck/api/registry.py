"""The container registry service: repositories of a project or group, tags, tag details, deletes.

The tag list gives names only; the cleanup preview needs each tag's creation time, digest and size.
`tag_details()` reads them through GraphQL where the instance has it (`registry_graphql`): one request for
a repository of up to 20 tags, else every name in one request (`GET /registry/repositories/:id?tags=true`;
where that fails, the tag list's pages, concurrently, each page's details asked as it arrives) and their
details in batches of `tagDetails` (concurrent too; bigger for an administrator, whose complexity limit
is higher). Where GraphQL is absent or refuses (404, 401/403: remembered for the session; errors in its
answer: for that repository), it falls back to one REST detail request per tag, concurrently, skipping
tags deleted meanwhile. With a `TagDetailCache`, a warm read asks details only for names the cache cannot
answer: a repository of 15,000 tags read minutes ago costs two requests. `last_source` says which way the
last read went. Each manifest's layers (what the size figures of `domain.registry_sizes` count, a shared
layer once) come from the cache, else from GraphQL's `manifest` in batches (`manifests_batch`, about one
request per 120 manifests); REST has none, and without them the figures say they are upper bounds. A
reader that can show the tags before their layers (the cleanup preview) reads them apart (`add_layers`).

Bulk delete can run at most once an hour per repository. The server refuses a second call with a 400 and
says no more, so `BulkDeleteLocks` remembers when this process sent one and says how long until the next
is allowed; the refusal becomes `BulkDeleteLocked` (with that time when known).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.client import ApiClient
from labdeck.api.errors import BadRequest, LabdeckError, NotFound
from labdeck.api.instance import InstanceService
from labdeck.api.models.registry import RegistryRepository, RegistryTag, RegistryTagDetail
from labdeck.api.registry_graphql import (
    ADMIN_BATCH,
    BATCH,
    PAGE,
    GraphQLRefused,
    RegistryGraphQL,
    TagsPage,
    availability,
)
from labdeck.api.registry_known import known_for
from labdeck.api.registry_layers import with_layers
from labdeck.api.tag_cache import TagDetailCache
from labdeck.api.tag_detail_stream import DetailStream
from labdeck.domain import catalogue as ep
from labdeck.domain.registry_cleanup import CleanupRules
from labdeck.domain.registry_sizes import format_size as format_size  # the registry's one size format

LOCK_SECONDS = 3600
_LOCK_HINT = "at most once an hour"
Ref = int | str
Progress = Callable[[int, int], None]


class BulkDeleteLocked(LabdeckError):
    """The server refused a bulk delete: one already ran within the hour for this repository."""

    def __init__(self, message: str, remaining: float | None) -> None:
        self.message = message
        self.remaining = remaining
        when = f"; next allowed in {format_wait(remaining)}" if remaining is not None else ""
        super().__init__(f"{message}{when}")


def format_wait(seconds: float) -> str:
    """`59m 30s`, `45s`: a short wait for the operator."""
    seconds = max(int(seconds + 0.999), 0)
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}m {rest:02d}s" if minutes else f"{rest}s"


def format_age(created: datetime | None, now: datetime) -> str:
    """`3d`, `5h`, `2mo`, `1y`: how long ago; `—` when the manifest has no creation time."""
    if created is None:
        return "—"
    seconds = max((now - created).total_seconds(), 0)
    for unit, size in (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit}"
    return f"{int(seconds)}s"


class BulkDeleteLocks:
    """When this process last sent a bulk delete, per instance and repository."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._sent: dict[tuple[str, int], float] = {}

    def record(self, instance: str, repository_id: int) -> None:
        self._sent[(instance, repository_id)] = self.clock()

    def locked(self, instance: str) -> list[tuple[int, float]]:
        """Repositories of `instance` whose bulk delete is still locked, with the seconds left."""
        mine = [repo for inst, repo in list(self._sent) if inst == instance]
        found = [(repo, self.remaining(instance, repo)) for repo in mine]
        return [(repo, left) for repo, left in found if left is not None]

    def remaining(self, instance: str, repository_id: int) -> float | None:
        """Seconds until the next bulk delete is allowed, or None when not locked as far as we know."""
        sent = self._sent.get((instance, repository_id))
        if sent is None:
            return None
        left = sent + LOCK_SECONDS - self.clock()
        return left if left > 0 else None


LOCKS = BulkDeleteLocks()


class RegistryService:
    """Every registry endpoint labdeck uses. `project` is an id or a full path."""

    def __init__(self, client: ApiClient, locks: BulkDeleteLocks | None = None, *,
                 tag_cache: TagDetailCache | None = None, graphql: bool = True,
                 admin: bool | None = None) -> None:
        self.client = client
        self.locks = locks if locks is not None else LOCKS
        self.tag_cache = tag_cache
        self.graphql = RegistryGraphQL(client) if graphql else None
        self.admin = admin  # whether the caller is an administrator (None: asked when it matters)
        self.last_source = ""
        # REST detail reads in flight, shared by every chunk of one preview (a stream of pages starts a
        # chunk per page: a gate per chunk let thousands wait on the client's slots, past their deadline)
        self._detail_gate = asyncio.Semaphore(max(client.settings.concurrency, 1) * 2)

    @property
    def _instance(self) -> str:
        return self.client.settings.base_url

    # -- reading ----------------------------------------------------------------------------------------
    async def project_repositories(self, project: Ref, *,
                                   tags_count: bool = True) -> list[RegistryRepository]:
        listing = b.PROJECT_REGISTRY_REPOSITORIES
        items = await self.client.fetch_all(listing.path(project), {"tags_count": tags_count or None})
        return listing.parse(items)

    async def group_repositories(self, group: Ref, *, tags_count: bool = True) -> list[RegistryRepository]:
        listing = b.GROUP_REGISTRY_REPOSITORIES
        items = await self.client.fetch_all(listing.path(group), {"tags_count": tags_count or None})
        return listing.parse(items)

    async def repository(self, repository_id: int, *, tags_count: bool = False) -> RegistryRepository:
        return await b.REGISTRY_REPOSITORY.read(self.client, repository_id,
                                                params={"tags_count": tags_count or None})

    async def repository_exists(self, repository_id: int) -> bool:
        """False once the repository is gone (after an asynchronous delete)."""
        try:
            await self.repository(repository_id)
        except NotFound:
            return False
        return True

    async def tags(self, project: Ref, repository_id: int) -> list[RegistryTag]:
        """The whole tag list (names; a bulk delete's read-back): what the overview knows follows it."""
        listing = b.REGISTRY_TAGS
        tags = listing.parse(await self.client.fetch_all(listing.path(project, repository_id)))  # uncached
        known_for(self.client).keep_tags(self._instance, repository_id, (tag.name for tag in tags))
        return tags

    async def tag(self, project: Ref, repository_id: int, name: str) -> RegistryTagDetail:
        return await b.REGISTRY_TAG.read(self.client, project, repository_id, name)

    async def tag_details(self, project: Ref, repository_id: int, names: list[str] | None = None, *,
                          on_progress: Progress | None = None, refresh: bool = False,
                          tags_count: int | None = None, path: str | None = None,
                          layers: bool = True) -> list[RegistryTagDetail]:
        """The detail of every tag (or of `names`, by REST), in name order; tags that vanished are left
        out. `refresh=True` ignores the cache's names (digest facts are always good). `tags_count` (from
        the repository listing): a repository of more than one GraphQL page whose names the cache holds
        skips the first page, once GraphQL is known to serve (the cache answers the names it gives).
        `path`: the repository's own path, by which the overview names it (else the project's). `layers`:
        each manifest's layers too (`with_layers`; False reads the details alone)."""
        if names is not None:
            self.last_source = "rest"
            found = await self._rest_details(project, repository_id, names, on_progress)
            listed = [detail for n in names if (detail := found.get(n)) is not None]
            return await self.with_layers(repository_id, listed) if layers else listed
        if self._warm(repository_id, tags_count, refresh):
            first: TagsPage | None = TagsPage([], True, None, tags_count)
        else:
            first = await self._graphql_first_page(repository_id)
        read: set[str] | None = None  # the names read from the server now (None: all of them)
        if first is not None and not first.has_next:
            details = first.details
            self.last_source = "graphql"
            if on_progress is not None:
                on_progress(len(details), len(details))
        else:
            details, read = await self._stream_details(project, repository_id, first, on_progress, refresh)
        if layers:
            details = await self.with_layers(repository_id, details)
        if self.tag_cache is not None:
            self.tag_cache.store(repository_id, details, read)
        # the whole repository: the overview may name its storage
        known_for(self.client).record(self._instance, repository_id, path or str(project), str(project),
                                      details)
        return details

    async def with_layers(self, repository_id: int,
                          details: list[RegistryTagDetail]) -> list[RegistryTagDetail]:
        """The details with their manifests' layers (`registry_layers.with_layers`)."""
        return await with_layers(self.client, self.graphql, self.tag_cache, repository_id, details)

    async def add_layers(self, project: Ref, repository_id: int, details: list[RegistryTagDetail], *,
                         path: str | None = None) -> list[RegistryTagDetail]:
        """Every tag of a repository read with `layers=False` (`details`), now with their layers, which the
        tag cache and the session's record keep (as `tag_details` would have)."""
        found = await self.with_layers(repository_id, details)
        if self.tag_cache is not None:
            self.tag_cache.store(repository_id, found, ())  # (the names' times stay those of their read)
        known_for(self.client).record(self._instance, repository_id, path or str(project), str(project),
                                      found)
        return found

    async def _stream_details(self, project: Ref, repository_id: int, first: TagsPage | None,
                              on_progress: Progress | None,
                              refresh: bool) -> tuple[list[RegistryTagDetail], set[str]]:
        """Names from the REST tag list, page by page; each page's names the cache cannot answer are read
        at once (GraphQL batches when `first` says GraphQL serves, else REST), while later pages still
        arrive. The details in name order, and the names read from the server now."""
        cache = None if refresh else self.tag_cache
        known: dict[str, RegistryTagDetail] = {d.name: d for d in first.details} if first else {}
        names: list[str] = []
        cached = 0

        async def rest_one(chunk: list[str]) -> dict[str, RegistryTagDetail | None]:
            return await self._rest_details(project, repository_id, chunk, None)

        async def graphql_batch(chunk: list[str]) -> dict[str, RegistryTagDetail | None]:
            assert self.graphql is not None
            try:
                return await self.graphql.tag_details_batch(repository_id, chunk)
            except GraphQLRefused as refused:
                if not refused.too_complex or len(chunk) <= BATCH:
                    raise
            # an administrator's batch refused all the same: a user's batches instead
            parts = await asyncio.gather(*(graphql_batch(chunk[i:i + BATCH])
                                           for i in range(0, len(chunk), BATCH)))
            return {name: detail for part in parts for name, detail in part.items()}

        stream = DetailStream(graphql_batch if first is not None else rest_one,
                              BATCH if first is not None else 1, on_progress)
        asked = 0

        def page_names(items: list[Any]) -> None:
            nonlocal cached, asked
            page = [item["name"] for item in items
                    if isinstance(item, dict) and isinstance(item.get("name"), str)]
            names.extend(page)
            if cache is not None:
                hits = cache.lookup(repository_id, [n for n in page if n not in known])
                cached += len(hits)
                known.update(hits)
            missing = [n for n in page if n not in known]
            asked += len(missing)
            stream.add(missing, len(page) - len(missing))

        try:
            if first is not None and self.admin is None:  # an administrator's batches are bigger
                every, self.admin = await asyncio.gather(self._every_tag(repository_id), self._is_admin())
            else:
                every = await self._every_tag(repository_id)
            if first is not None and self.admin:
                stream.size = ADMIN_BATCH
            if every is not None:
                page_names(every)
            else:
                await self.client.fetch_all(ep.REGISTRY_TAGS.path(project, repository_id),
                                            on_items=page_names)
            fetched, refused = await stream.finish()
        except BaseException:
            await stream.cancel()
            raise
        self.last_source = "graphql" if first is not None else "rest"
        if refused:
            fetched.update(await self._refused(project, repository_id, refused, asked, first))
        if cached:
            self.last_source += f" (+{cached:,} cached)"
        known.update({n: d for n, d in fetched.items() if d is not None})
        read = set(fetched) | ({d.name for d in first.details} if first is not None else set())
        return [known[n] for n in names if n in known], read

    def _warm(self, repository_id: int, tags_count: int | None, refresh: bool) -> bool:
        return (not refresh and tags_count is not None and tags_count > PAGE and self.graphql is not None
                and self.tag_cache is not None and availability(self.client).usable is True
                and self.tag_cache.holds_names(repository_id))

    async def _is_admin(self) -> bool:
        """Whether the token's user is an administrator (`is_admin` of `GET /user`); False when unknown."""
        try:
            return (await InstanceService(self.client).current_user()).is_admin is True
        except LabdeckError:
            return False

    async def _every_tag(self, repository_id: int) -> list[Any] | None:
        """Every tag of the repository (name, path, location) in one request: GitLab's
        `GET /registry/repositories/:id?tags=true` lists them all (the registry's pages are walked on the
        server), where the tag list takes one request per 100. None when that answer cannot be had
        (before GitLab 13.6, an error, a body past the size cap): the caller walks the list instead, and
        meets the real error there if there is one."""
        try:
            response = await self.client.request("GET", ep.REGISTRY_REPOSITORY.path(repository_id),
                                                 params={"tags": True})
            data = await body.off_loop(len(response.content), body.clean_items, response.content,
                                       "GET /registry/repositories/:id?tags=true")
        except LabdeckError:
            return None
        tags = data.get("tags") if isinstance(data, dict) else None
        return tags if isinstance(tags, list) else None

    async def _graphql_first_page(self, repository_id: int) -> TagsPage | None:
        state = availability(self.client)
        if self.graphql is None or state.usable is False:
            return None
        try:
            page = await self.graphql.tags_page(repository_id)
        except GraphQLRefused as refused:
            if refused.session_wide:
                state.usable, state.reason = False, refused.reason
            return None
        state.usable = True
        return page

    async def _refused(self, project: Ref, repository_id: int, refused: list[str], asked: int,
                       first: TagsPage | None) -> dict[str, RegistryTagDetail | None]:
        """Names whose GraphQL batch was refused. Where every batch was (an older GitLab without
        `tagDetails`) the `tags` connection is followed from `first` instead; else they go by REST."""
        if first is not None and len(refused) == asked:
            try:
                found = {d.name: d for d in await self._connection_rest(repository_id, first)}
                self.last_source = "graphql (tags connection)"
                return dict.fromkeys(refused) | found
            except GraphQLRefused:
                pass
        self.last_source = "graphql + rest"
        return await self._rest_details(project, repository_id, refused, None)

    async def _connection_rest(self, repository_id: int, page: TagsPage) -> list[RegistryTagDetail]:
        assert self.graphql is not None
        details: list[RegistryTagDetail] = []
        while page.has_next and page.end_cursor:
            page = await self.graphql.tags_page(repository_id, page.end_cursor)
            details.extend(page.details)
        return details

    async def _rest_details(self, project: Ref, repository_id: int, names: list[str],
                            on_progress: Progress | None) -> dict[str, RegistryTagDetail | None]:
        """One REST detail request per tag, concurrently (None for a tag gone meanwhile)."""
        total = len(names)
        done = 0
        async def one(name: str) -> RegistryTagDetail | None:
            nonlocal done
            async with self._detail_gate:
                try:
                    return await self.tag(project, repository_id, name)
                except NotFound:
                    return None
                finally:
                    done += 1
                    if on_progress is not None:
                        on_progress(done, total)

        results = await asyncio.gather(*(one(name) for name in names))
        return dict(zip(names, results, strict=True))

    # -- deleting ---------------------------------------------------------------------------------------
    def _names_changed(self, repository_id: int) -> None:
        if self.tag_cache is not None:
            self.tag_cache.forget_names(repository_id)

    async def delete_tag(self, project: Ref, repository_id: int, name: str) -> None:
        await self.client.request("DELETE", ep.REGISTRY_TAG_DELETE.path(project, repository_id, name))
        self._names_changed(repository_id)
        known_for(self.client).forget_tags(self._instance, repository_id, [name])

    async def delete_repository(self, project: Ref, repository_id: int) -> None:
        """Accepted (202): the repository disappears later; see `repository_exists`."""
        await self.client.request("DELETE", ep.REGISTRY_REPOSITORY_DELETE.path(project, repository_id))
        self._names_changed(repository_id)
        known_for(self.client).forget(self._instance, repository_id)

    def lock_remaining(self, repository_id: int) -> float | None:
        """Seconds until a bulk delete of this repository is allowed again (as far as this process knows)."""
        return self.locks.remaining(self._instance, repository_id)

    async def bulk_delete(self, project: Ref, repository_id: int, rules: CleanupRules) -> None:
        """Ask for a bulk delete with `rules` (sent as `name_regex_delete`, never the deprecated alias).
        Accepted (202): the tags go in the background. `BulkDeleteLocked` when refused for the hour."""
        params = {"name_regex_delete": rules.name_regex_delete, "name_regex_keep": rules.name_regex_keep,
                  "keep_n": rules.keep_n, "older_than": rules.older_than}
        try:
            await self.client.request("DELETE", ep.REGISTRY_TAGS_DELETE.path(project, repository_id),
                                      params=params)
        except BadRequest as error:
            if _LOCK_HINT in str(error.message):
                raise BulkDeleteLocked(str(error.message), self.lock_remaining(repository_id)) from None
            raise
        self.locks.record(self._instance, repository_id)
        self._names_changed(repository_id)
