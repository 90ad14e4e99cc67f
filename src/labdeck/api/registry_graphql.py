"""Container registry tag details through GitLab's GraphQL API (`POST /api/graphql`, beside `/api/v4`).

Two reads, in GitLab's own types (`Time` in ISO 8601, `BigInt` as a string):
- `tags_page()`: the container repository's `tags` connection, cursor pagination. GitLab caps this field at
  20 nodes per page (`max_page_size: 20` in `ContainerRepositoryDetailsType`) and clamps a larger `first`
  silently, so labdeck asks for exactly 20: on registries with the metadata database GitLab passes `first`
  to the registry and takes its cursor after that many tags, so asking for 100 would skip 80 of them.
- `tag_details_batch()`: `tagDetails(name:)` for many names in one request (aliases `t0`, `t1`, ...), so a
  big repository is read with requests that run concurrently instead of one cursor page after another.
  `BATCH` keeps a query under GitLab's complexity limit for authenticated users (250: one point per field)
  and its 10,000 character query limit; a batch asks only what the preview needs (no path or location).

`GraphQLRefused` says why GraphQL cannot serve (`session_wide` when the endpoint is absent, 404, or refuses
this token, 401/403: the caller then stops asking for the rest of the session; errors in the body count
for one repository only). `availability(client)` remembers that per client (one per session).
"""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass
from typing import Any

from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, Forbidden, MalformedResponse, NotFound, Unauthorized
from labdeck.api.models.base import parse_one
from labdeck.api.models.registry import RegistryTagDetail
from labdeck.domain.text import may_hold_control

PAGE = 20
BATCH = 40
# What the preview needs of a tag in a batch: 1 + 5 fields, so 1 + 40 x 6 = 241 <= 250.
_FIELDS = "name digest createdAt publishedAt totalSize"
TAGS_QUERY = (
    "query labdeckTags($id: ContainerRepositoryID!, $first: Int, $after: String) {"
    " containerRepository(id: $id) { tagsCount"
    " tags(first: $first, after: $after) { nodes { " + _FIELDS + " path location revision shortRevision }"
    " pageInfo { hasNextPage endCursor } } } }"
)


class GraphQLRefused(Exception):
    """GraphQL cannot serve this read: absent (404), refused (401/403), or errors in its answer."""

    def __init__(self, reason: str, *, session_wide: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.session_wide = session_wide


@dataclass
class Availability:
    """What this session learnt: None until asked, then whether GraphQL serves, and why not."""

    usable: bool | None = None
    reason: str = ""


_AVAILABILITY: weakref.WeakKeyDictionary[ApiClient, Availability] = weakref.WeakKeyDictionary()


def availability(client: ApiClient) -> Availability:
    """The session's record for this client (job tokens never reach GraphQL: GitLab does not take them)."""
    found = _AVAILABILITY.get(client)
    if found is None:
        found = Availability()
        if client.settings.auth == "job":
            found.usable, found.reason = False, "job tokens are not accepted by GitLab's GraphQL API"
        _AVAILABILITY[client] = found
    return found


def gid(repository_id: int) -> str:
    return f"gid://gitlab/ContainerRepository/{int(repository_id)}"


def detail_of(node: dict[str, Any], *, sanitised: bool = False) -> RegistryTagDetail:
    """A GraphQL tag node as the REST detail model (`totalSize` is a BigInt string). `sanitised`: the
    response had no control character at all, so the per-string walk is skipped."""
    size = node.get("totalSize")
    try:
        total = int(size) if size is not None else None
    except (TypeError, ValueError):
        total = None
    return parse_one(RegistryTagDetail, {
        "name": node.get("name"), "path": node.get("path"), "location": node.get("location"),
        "digest": node.get("digest"), "revision": node.get("revision"),
        "short_revision": node.get("shortRevision"), "created_at": node.get("createdAt"),
        "published_at": node.get("publishedAt"), "total_size": total}, sanitised=sanitised)


@dataclass
class TagsPage:
    details: list[RegistryTagDetail]
    has_next: bool
    end_cursor: str | None
    tags_count: int | None


class RegistryGraphQL:
    """GraphQL reads of one instance's container registry."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    @property
    def url(self) -> str:
        """`/api/graphql` on the instance (a full URL: the client's paths are relative to `/api/v4`)."""
        return self.client.settings.base_url.rstrip("/") + "/api/graphql"

    async def query(self, query: str, variables: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        """`data` of a query, and whether its bytes were free of control characters (then its strings
        need no sanitising); `GraphQLRefused` when GraphQL is absent, refuses, or answers with errors."""
        try:
            response = await self.client.request("POST", self.url,
                                                 json={"query": query, "variables": variables})
        except (NotFound, Unauthorized, Forbidden) as error:
            raise GraphQLRefused(f"GraphQL answered {error.status}", session_wide=True) from None
        except ApiError as error:
            raise GraphQLRefused(f"GraphQL answered {error.status}", session_wide=False) from None
        clean = not may_hold_control(response.content)
        try:
            body = json.loads(response.content)
        except (ValueError, UnicodeDecodeError):
            raise GraphQLRefused("GraphQL answered with a body not JSON", session_wide=False) from None
        if not isinstance(body, dict):
            raise GraphQLRefused("GraphQL answered with an unexpected body", session_wide=False)
        errors = body.get("errors")
        if errors:
            first = errors[0] if isinstance(errors, list) and errors else errors
            message = first.get("message") if isinstance(first, dict) else first
            raise GraphQLRefused(f"GraphQL error: {str(message)[:200]}", session_wide=False)
        data = body.get("data")
        if not isinstance(data, dict):
            raise GraphQLRefused("GraphQL answered without data", session_wide=False)
        return data, clean

    async def _repository(self, query: str, variables: dict[str, Any]) -> tuple[dict[str, Any], bool]:
        data, clean = await self.query(query, variables)
        repo = data.get("containerRepository")
        if not isinstance(repo, dict):  # missing or not readable: GitLab answers null
            raise GraphQLRefused("GraphQL did not find the repository", session_wide=False)
        return repo, clean

    async def tags_page(self, repository_id: int, after: str | None = None) -> TagsPage:
        variables = {"id": gid(repository_id), "first": PAGE, "after": after}
        repo, clean = await self._repository(TAGS_QUERY, variables)
        tags = repo.get("tags")
        if not isinstance(tags, dict):
            raise GraphQLRefused("GraphQL answered without tags", session_wide=False)
        try:
            nodes = [node for node in tags.get("nodes") or [] if isinstance(node, dict)]
            info = tags.get("pageInfo") or {}
            count = repo.get("tagsCount")
            details = [detail_of(node, sanitised=clean) for node in nodes]
            return TagsPage(details, bool(info.get("hasNextPage")), info.get("endCursor"),
                            count if isinstance(count, int) else None)
        except MalformedResponse as error:
            raise GraphQLRefused(f"GraphQL answered unreadable tags: {error}", session_wide=False) from None

    async def tag_details_batch(self, repository_id: int,
                                names: list[str]) -> dict[str, RegistryTagDetail | None]:
        """The details of up to `BATCH` tags by name (None for a tag that is gone)."""
        fields = " ".join(f"t{i}: tagDetails(name: $n{i}) {{ {_FIELDS} }}" for i in range(len(names)))
        params = ", ".join(f"$n{i}: String!" for i in range(len(names)))
        query = (f"query labdeckTagDetails($id: ContainerRepositoryID!, {params}) "
                 f"{{ containerRepository(id: $id) {{ {fields} }} }}")
        variables: dict[str, Any] = {"id": gid(repository_id)}
        variables.update({f"n{i}": name for i, name in enumerate(names)})
        repo, clean = await self._repository(query, variables)
        out: dict[str, RegistryTagDetail | None] = {}
        try:
            for i, name in enumerate(names):
                node = repo.get(f"t{i}")
                out[name] = detail_of(node, sanitised=clean) if isinstance(node, dict) else None
        except MalformedResponse as error:
            raise GraphQLRefused(f"GraphQL answered unreadable tags: {error}", session_wide=False) from None
        return out
