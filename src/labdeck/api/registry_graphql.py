"""Container registry tag details through GitLab's GraphQL API (`POST /api/graphql`, beside `/api/v4`).

Two reads, in GitLab's own types (`Time` in ISO 8601, `BigInt` as a string):
- `tags_page()`: the container repository's `tags` connection, cursor pagination. GitLab caps this field at
  20 nodes per page (`max_page_size: 20` in `ContainerRepositoryDetailsType`) and clamps a larger `first`
  silently, so labdeck asks for exactly 20: on registries with the metadata database GitLab passes `first`
  to the registry and takes its cursor after that many tags, so asking for 100 would skip 80 of them.
- `tag_details_batch()`: `tagDetails(name:)` for many names in one request (aliases `t0`, `t1`, ...), so a
  big repository is read with requests that run concurrently instead of one cursor page after another.
  A batch asks only what the preview needs, and not the name (the alias says which tag it is): digest,
  createdAt and totalSize, so `BATCH` = 62 tags keep a query at 1 + 62 x 4 = 249 points, under GitLab's
  complexity limit for an authenticated user (250: graphql-ruby counts one point per field, aliases each;
  `Types::BaseField`), and far under its 10,000 character query limit. (`publishedAt` would cost 13 more
  requests per 1,000 tags; nothing of the preview uses it: the rules go by `createdAt`, as GitLab's do.)
  An administrator's limit is 300 (`ADMIN_BATCH` = 74 tags; a batch refused for its complexity all the
  same is asked again in batches of `BATCH`). Several queries in one HTTP request (Apollo batching)
  would not help: GitLab gives the whole multiplex the same limit.

- `manifests_batch()`: `manifest(reference:)` for many digests in one request (aliases `m0`, `m1`, ...):
  GitLab's `ContainerRepositoryDetails.manifest` (`app/graphql/types/container_repository_details_type.rb`)
  gives the registry's manifest text, whose `layers` (digest, size) are what a tag's `total_size` adds up
  (`lib/container_registry/tag.rb`). The sizes of `domain.registry_sizes` need them: a layer shared by
  images counts once. One point per alias: `MANIFEST_BATCH` = 120 digests keep a query under the anonymous
  limit (200) and, at some 50 characters an alias, under 10,000 characters.

Answers are decoded with orjson and read into the models in one validation call per page or batch.

`GraphQLRefused` says why GraphQL cannot serve (`session_wide` when the endpoint is absent, 404, or refuses
this token, 401/403: the caller then stops asking for the rest of the session; errors in the body count
for one repository only). `availability(client)` remembers that per client (one per session).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import Any

import orjson

from labdeck.api.body import decode_json
from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, Forbidden, MalformedResponse, NotFound, Unauthorized
from labdeck.api.models.base import parse_many
from labdeck.api.models.registry import RegistryTagDetail, trusted_detail
from labdeck.domain.digits import integer_value
from labdeck.domain.endpoints import RawPath
from labdeck.domain.registry_sizes import Blob
from labdeck.domain.text import may_hold_control

PAGE = 20
COMPLEXITY = 250  # GitlabSchema::AUTHENTICATED_MAX_COMPLEXITY
ADMIN_COMPLEXITY = 300  # GitlabSchema::ADMIN_MAX_COMPLEXITY
# What the preview needs of a tag in a batch (the name is the alias's): 1 + 3 points per tag.
_BATCH_FIELDS = "digest createdAt totalSize"


def batch_size(complexity: int) -> int:
    """How many tags a `tagDetails` batch can ask under a complexity limit (one point for the repository)."""
    return (complexity - 1) // (1 + len(_BATCH_FIELDS.split()))


BATCH = batch_size(COMPLEXITY)
ADMIN_BATCH = batch_size(ADMIN_COMPLEXITY)
MANIFEST_BATCH = 120
TAGS_QUERY = (
    "query labdeckTags($id: ContainerRepositoryID!, $first: Int, $after: String) {"
    " containerRepository(id: $id) { tagsCount"
    " tags(first: $first, after: $after) { nodes { name " + _BATCH_FIELDS +
    " publishedAt path location revision shortRevision } pageInfo { hasNextPage endCursor } } } }"
)


class GraphQLRefused(Exception):
    """GraphQL cannot serve this read: absent (404), refused (401/403), or errors in its answer."""

    def __init__(self, reason: str, *, session_wide: bool) -> None:
        super().__init__(reason)
        self.reason = reason
        self.session_wide = session_wide

    @property
    def too_complex(self) -> bool:
        """graphql-ruby's "Query has complexity of N, which exceeds max complexity of M"."""
        return "exceeds max complexity" in self.reason


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


def _size(value: Any) -> int | None:
    """GitLab's `BigInt` (a string) as an int; None when absent or unreadable."""
    return integer_value(value) if isinstance(value, int | str) else None


def rest_shaped(node: dict[str, Any], name: Any = None) -> dict[str, Any]:
    """A GraphQL tag node in the REST detail's names (`name` given when the node has none)."""
    return {"name": node.get("name") if name is None else name, "path": node.get("path"),
            "location": node.get("location"), "digest": node.get("digest"), "revision": node.get("revision"),
            "short_revision": node.get("shortRevision"), "created_at": node.get("createdAt"),
            "published_at": node.get("publishedAt"), "total_size": _size(node.get("totalSize"))}


_TEXT_FIELDS = ("path", "location", "digest", "revision", "short_revision")


def _when(value: Any) -> datetime | None:
    """GitLab's `Time` (ISO 8601) as an aware datetime (UTC when it has no offset); ValueError otherwise."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise ValueError(value)
    parsed = datetime.fromisoformat(value)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _plain_rows(rows: list[dict[str, Any]]) -> list[RegistryTagDetail] | None:
    """The rows as models without validation when every value already has its model's type (the usual
    answer: strings, ISO times, integers); None as soon as one does not (then pydantic reads them all)."""
    out: list[RegistryTagDetail] = []
    for row in rows:
        if not isinstance(row.get("name"), str) or not isinstance(row.get("total_size"), int | None) \
                or isinstance(row.get("total_size"), bool) \
                or not all(isinstance(row.get(key), str | None) for key in _TEXT_FIELDS):
            return None
        try:
            created, published = _when(row.get("created_at")), _when(row.get("published_at"))
        except ValueError:
            return None
        out.append(trusted_detail(**{**row, "created_at": created, "published_at": published}))
    return out


def details_of(rows: list[dict[str, Any]], *, sanitised: bool) -> list[RegistryTagDetail]:
    """REST-shaped rows as detail models (`sanitised`: the answer had no control character at all, so no
    walk): built directly when every value has its type already, else validated in one call;
    `GraphQLRefused` when any row cannot be read (that read goes by REST)."""
    plain = _plain_rows(rows) if sanitised else None
    if plain is not None:
        return plain
    try:
        details = parse_many(RegistryTagDetail, rows, sanitised=sanitised)
    except MalformedResponse as error:
        raise GraphQLRefused(f"GraphQL answered unreadable tags: {error}", session_wide=False) from None
    if len(details) != len(rows) or any(detail.unreadable for detail in details):
        raise GraphQLRefused("GraphQL answered unreadable tags", session_wide=False)
    return details


@cache
def batch_query(size: int) -> str:
    """The `tagDetails` query for `size` names (`$n0`...), built once per size."""
    fields = " ".join(f"t{i}: tagDetails(name: $n{i}) {{ {_BATCH_FIELDS} }}" for i in range(size))
    params = ", ".join(f"$n{i}: String!" for i in range(size))
    return (f"query labdeckTagDetails($id: ContainerRepositoryID!, {params}) "
            f"{{ containerRepository(id: $id) {{ {fields} }} }}")


@cache
def manifests_query(size: int) -> str:
    """The `manifest` query for `size` references (`$r0`...), built once per size."""
    fields = " ".join(f"m{i}: manifest(reference: $r{i})" for i in range(size))
    params = ", ".join(f"$r{i}: String!" for i in range(size))
    return (f"query labdeckManifests($id: ContainerRepositoryID!, {params}) "
            f"{{ containerRepository(id: $id) {{ {fields} }} }}")


def manifest_layers(text: Any) -> tuple[Blob, ...] | None:
    """The layers (digest, size) of an image manifest's text (schema 2, Docker or OCI); None for anything
    else: a manifest list or index (its images' layers are in other manifests), schema 1 (no sizes), text
    that is not JSON, or a layer whose digest or size is not of its type."""
    if not isinstance(text, str):
        return None
    try:
        manifest = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    layers = manifest.get("layers") if isinstance(manifest, dict) else None
    if not isinstance(layers, list) or manifest.get("schemaVersion") != 2 or "manifests" in manifest:
        return None
    out: list[Blob] = []
    for layer in layers:
        digest = layer.get("digest") if isinstance(layer, dict) else None
        size = layer.get("size") if isinstance(layer, dict) else None
        if not isinstance(digest, str) or not isinstance(size, int) or isinstance(size, bool) or size < 0:
            return None
        out.append((digest, size))
    return tuple(out)


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
            response = await self.client.request("POST", RawPath(self.url),
                                                 json={"query": query, "variables": variables})
        except (NotFound, Unauthorized, Forbidden) as error:
            raise GraphQLRefused(f"GraphQL answered {error.status}", session_wide=True) from None
        except ApiError as error:
            raise GraphQLRefused(f"GraphQL answered {error.status}", session_wide=False) from None
        clean = not may_hold_control(response.content)
        try:
            body = decode_json(response.content, "POST /api/graphql")
        except MalformedResponse:
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
        nodes = found if isinstance(found := tags.get("nodes"), list) else []
        info = found if isinstance(found := tags.get("pageInfo"), dict) else {}
        count = repo.get("tagsCount")
        details = details_of([rest_shaped(node) for node in nodes if isinstance(node, dict)], sanitised=clean)
        cursor = info.get("endCursor")
        return TagsPage(details, bool(info.get("hasNextPage")), cursor if isinstance(cursor, str) else None,
                        count if isinstance(count, int) else None)

    async def tag_details_batch(self, repository_id: int,
                                names: list[str]) -> dict[str, RegistryTagDetail | None]:
        """The details of up to `BATCH` tags by name (None for a tag that is gone)."""
        variables: dict[str, Any] = {"id": gid(repository_id)}
        variables.update({f"n{i}": name for i, name in enumerate(names)})
        repo, clean = await self._repository(batch_query(len(names)), variables)
        nodes = [repo.get(f"t{i}") for i in range(len(names))]
        found = [(name, node) for name, node in zip(names, nodes, strict=True) if isinstance(node, dict)]
        details = details_of([rest_shaped(node, name) for name, node in found], sanitised=clean)
        out: dict[str, RegistryTagDetail | None] = dict.fromkeys(names)
        out.update(zip((name for name, _ in found), details, strict=True))
        return out

    async def manifests_batch(self, repository_id: int,
                              digests: list[str]) -> dict[str, tuple[Blob, ...] | None]:
        """The layers of up to `MANIFEST_BATCH` manifests by digest (None where the instance has no such
        manifest or one labdeck cannot read for layers)."""
        variables: dict[str, Any] = {"id": gid(repository_id)}
        variables.update({f"r{i}": digest for i, digest in enumerate(digests)})
        repo, _clean = await self._repository(manifests_query(len(digests)), variables)
        return {digest: manifest_layers(repo.get(f"m{i}")) for i, digest in enumerate(digests)}
