"""Each tag's layers, for the size figures of `domain.registry_sizes` (a layer shared by images counted once):
GitLab's REST tag detail gives only a manifest's digest and `total_size`; its GraphQL
`containerRepository.manifest(reference:)` gives the manifest itself (`registry_graphql.manifests_batch`).
A digest's layers never change, so the tag-detail cache keeps them with the digest's other facts.
"""

from __future__ import annotations

import asyncio

from labdeck.api.client import ApiClient
from labdeck.api.models.registry import RegistryTagDetail
from labdeck.api.registry_graphql import MANIFEST_BATCH, GraphQLRefused, RegistryGraphQL, availability
from labdeck.api.tag_cache import TagDetailCache
from labdeck.domain.registry_sizes import Blob


async def with_layers(client: ApiClient, graphql: RegistryGraphQL | None, cache: TagDetailCache | None,
                      repository_id: int, details: list[RegistryTagDetail]) -> list[RegistryTagDetail]:
    """The details with their manifests' layers: from the cache, else GraphQL's `manifest`, `MANIFEST_BATCH`
    digests a request, concurrently. Where GraphQL cannot say (no GraphQL, refused, a manifest list) a detail
    stays without: the figures then say they are upper bounds."""
    missing = sorted({d.digest for d in details if d.layers is None and d.digest})
    if not missing:
        return details
    found: dict[str, tuple[Blob, ...]] = {}
    if cache is not None:
        found.update(cache.layers(repository_id, missing))
    wanted = [digest for digest in missing if digest not in found]
    state = availability(client)
    if wanted and graphql is not None and state.usable is not False:
        reader = graphql

        async def batch(chunk: list[str]) -> dict[str, tuple[Blob, ...] | None]:
            try:
                return await reader.manifests_batch(repository_id, chunk)
            except GraphQLRefused as refused:
                if refused.session_wide:
                    state.usable, state.reason = False, refused.reason
                return {}

        parts = await asyncio.gather(*(batch(wanted[i:i + MANIFEST_BATCH])
                                       for i in range(0, len(wanted), MANIFEST_BATCH)))
        found.update((digest, blobs) for part in parts for digest, blobs in part.items() if blobs is not None)
    if not found:
        return details
    return [d.with_layers(found[d.digest]) if d.layers is None and d.digest in found else d for d in details]
