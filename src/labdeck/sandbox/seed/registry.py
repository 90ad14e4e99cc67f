"""The container registry's records and seed data: repositories of projects and their tags.

Tags look like a real project's registry over a year: `main-<sha>` builds, semver releases (`v1.4.2`) that
share the digest of the build they were cut from, `latest` (and `stable`) pointing at the newest build
(release), `pr-123` images, and now and then a tag whose manifest has no creation time. Times are whole
milliseconds, so they round-trip through JSON exactly.

Every tag knows its manifest's layers (digest and size; `total_size` is their sum, as GitLab's is): the
builds of one repository share base layers (about the smallest image's size) and each manifest adds a layer
of its own, so a repository's size (its unique blobs, `domain.registry_sizes`) is far below its tags' sizes
added up, as a real registry's is. The layers are derived from the digests (a hash), not drawn from the seed's
random stream, so the rest of the seed is as it was. A tag made without layers (tests) is one layer of its
total size, named after its manifest.

Every scale seeds the core projects (tiny included); demo adds repositories to the generated projects;
large adds 20,000 tags more: one big repository (`acme/platform/api-gateway`, `nightly`) plus spread.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from labdeck.domain.registry_cleanup import TagInfo
from labdeck.domain.registry_sizes import Blob, BlobIndex
from labdeck.sandbox.store import Project, Store

if TYPE_CHECKING:
    from labdeck.sandbox.seed import SeedContext

AREA = "registry"
YEAR_MS = 365 * 24 * 3600 * 1000
LARGE_EXTRA_TAGS = 20_000
LARGE_BIG_REPOSITORY_TAGS = 15_000
_REPO_NAMES = ("", "worker", "docs", "migrations", "ci/cache", "debug")
_CORE_REPOS: dict[str, tuple[str, ...]] = {
    "acme/platform/api-gateway": ("", "worker", "ci/cache"),
    "acme/platform/web-portal": ("",),
    "acme/infra/terraform": ("",),
    "acme/security/vault": ("",),
    "opensource/labdeck": ("", "docs"),
    "hidden-lab/secrets": ("",),
}


@dataclass(slots=True)
class Tag:
    name: str
    created_at: datetime | None
    digest: str
    revision: str
    total_size: int
    layers: tuple[Blob, ...] = ()  # its manifest's layers (digest, size); none given: one of total_size


def layer_digest(seed: str, part: str) -> str:
    """A layer's digest derived from `seed` (a manifest's digest) and the layer's part: deterministic."""
    return "sha256:" + hashlib.sha256(f"{seed}/{part}".encode()).hexdigest()


def tag_layers(tag: Tag) -> tuple[Blob, ...]:
    """The layers of the tag's manifest (those seeded, else one layer of its total size)."""
    return tag.layers or ((layer_digest(tag.digest, "image"), tag.total_size),)


def tag_info(tag: Tag) -> TagInfo:
    """The tag as the domain's rules and figures read it."""
    return TagInfo(tag.name, tag.created_at, tag.digest, tag.total_size, tag_layers(tag))


def with_layers(tags: list[Tag], base: int) -> list[Tag]:
    """Give `tags` (one repository's builds) base layers shared by all, `base` bytes in all, and a layer of
    each manifest's own for the rest of its size; a tag smaller than the base is a layer of its own."""
    if not tags:
        return tags
    seed = tags[0].digest
    os_part, runtime = base * 6 // 10, base * 3 // 10
    shared = ((layer_digest(seed, "os"), os_part), (layer_digest(seed, "runtime"), runtime),
              (layer_digest(seed, "deps"), base - os_part - runtime))
    for tag in tags:
        own = tag.total_size - base
        if own < 0:
            tag.layers = ((layer_digest(tag.digest, "image"), tag.total_size),)
        else:
            tag.layers = (*shared, (layer_digest(tag.digest, "app"), own)) if own else shared
    return tags


_SIZES: dict[int, tuple[tuple[int, ...], list[Tag], int]] = {}


def repository_size(repo: Repository) -> int:
    """The repository's size as GitLab's registry counts it: its unique blobs (`domain.registry_sizes`),
    computed once per state of its tags (the cached list keeps them alive, so an id is never reused)."""
    objects = tuple(map(id, repo.tags.values()))
    found = _SIZES.get(repo.id)
    if found is not None and found[0] == objects:
        return found[2]
    tags = list(repo.tags.values())
    size = BlobIndex([tag_info(tag) for tag in tags]).size.bytes
    _SIZES[repo.id] = (objects, tags, size)
    return size


@dataclass(slots=True)
class Repository:
    id: int
    project_id: int
    name: str
    created_at: datetime
    tags: dict[str, Tag] = field(default_factory=dict)
    status: str | None = None  # "delete_scheduled" once a delete is accepted
    cleanup_policy_started_at: datetime | None = None
    cleanup_status: str = "cleanup_unscheduled"  # GraphQL's expirationPolicyCleanupStatus, lower-cased
    lease_until: float = float("-inf")  # the bulk delete lease, in store clock seconds


@dataclass
class RegistryData:
    """Everything the registry area holds; `store.areas["registry"]`."""

    repositories: dict[int, Repository] = field(default_factory=dict)

    def of_projects(self, project_ids: set[int]) -> list[Repository]:
        """Repositories of these projects, by id."""
        return sorted((r for r in self.repositories.values() if r.project_id in project_ids),
                      key=lambda r: r.id)

    def project_size(self, project_id: int) -> int:
        """A project's `statistics.container_registry_size`: the sum of its repositories' sizes."""
        return sum(repository_size(r) for r in self.repositories.values() if r.project_id == project_id)


def registry_data(store: Store) -> RegistryData:
    return store.area(AREA, RegistryData)


def add_repository(store: Store, project: Project, name: str, tags: list[Tag] | None = None,
                   created_at: datetime | None = None) -> Repository:
    """A repository of `project` (used by seeding and by tests that need exact data)."""
    repo = Repository(id=store.next_id("registry_repository"), project_id=project.id, name=name,
                      created_at=created_at or project.created_at,
                      tags={tag.name: tag for tag in tags or []})
    registry_data(store).repositories[repo.id] = repo
    store.touch()  # listings with statistics show the project's registry size
    return repo


def _hex(rng: random.Random, bits: int = 256) -> str:
    return f"{rng.getrandbits(bits):0{bits // 4}x}"


def _at(anchor_ms: int, offset_ms: int) -> datetime:
    return datetime.fromtimestamp((anchor_ms - offset_ms) / 1000, UTC)


def make_tags(rng: random.Random, anchor: datetime, count: int) -> list[Tag]:
    """About `count` realistic tags with ages spread over the year before `anchor`."""
    anchor_ms = int(anchor.timestamp() * 1000)
    builds = max(count * 2 // 3, 1)
    offsets = sorted((rng.randrange(60_000, YEAR_MS) for _ in range(builds)), reverse=True)
    tags: list[Tag] = []
    major, minor, patch = 1, rng.randrange(0, 4), 0
    newest_release: Tag | None = None
    base_size = rng.randrange(20, 300) * 1_000_000
    for offset in offsets:
        sha = _hex(rng, 28)
        build = Tag(f"main-{sha}", _at(anchor_ms, offset), f"sha256:{_hex(rng)}", _hex(rng),
                    base_size + rng.randrange(0, 40_000_000))
        tags.append(build)
        if rng.random() < 0.18:
            if rng.random() < 0.25:
                minor, patch = minor + 1, 0
            else:
                patch += 1
            release = Tag(f"v{major}.{minor}.{patch}", build.created_at, build.digest, build.revision,
                          build.total_size)
            tags.append(release)
            newest_release = release
    newest = tags[-1] if tags[-1].name.startswith("main-") else tags[-2]
    tags.append(Tag("latest", newest.created_at, newest.digest, newest.revision, newest.total_size))
    if newest_release is not None:
        tags.append(Tag("stable", newest_release.created_at, newest_release.digest, newest_release.revision,
                        newest_release.total_size))
    for number in rng.sample(range(100, 2000), max(count - len(tags), 0)):
        tags.append(Tag(f"pr-{number}", _at(anchor_ms, rng.randrange(60_000, YEAR_MS)),
                        f"sha256:{_hex(rng)}", _hex(rng), base_size + rng.randrange(0, 40_000_000)))
    if count >= 12 and rng.random() < 0.3:
        tags.append(Tag("buildcache", None, f"sha256:{_hex(rng)}", _hex(rng), rng.randrange(1, 9) * 10**8))
    unique: dict[str, Tag] = {}
    for tag in tags:
        unique.setdefault(tag.name, tag)
    with_layers([tag for tag in unique.values() if tag.name != "buildcache"], base_size)  # a cache: its own
    return list(unique.values())


def bulk_tags(rng: random.Random, anchor: datetime, count: int, prefix: str) -> list[Tag]:
    """`count` nightly-style tags built fast (the large scale): one digest per tag, every tenth a second name
    for the manifest before it (same digest, so the same creation time and size, as in a real registry)."""
    anchor_ms = int(anchor.timestamp() * 1000)
    randrange, getrandbits = rng.randrange, rng.getrandbits
    tags: list[Tag] = []
    digest = revision = ""
    for index in range(count):
        if index % 10 != 9:
            digest, revision = f"sha256:{getrandbits(256):064x}", f"{getrandbits(256):064x}"
        created: datetime | None = datetime.fromtimestamp((anchor_ms - randrange(60_000, YEAR_MS)) / 1000,
                                                          UTC)
        size = 50_000_000 + randrange(0, 200_000_000)  # drawn either way: the stream stays as it was
        if index % 10 == 9:
            created, size = tags[-1].created_at, tags[-1].total_size
        tags.append(Tag(f"{prefix}{index:05d}", created, digest, revision, size))
    return with_layers(tags, 50_000_000)


def seed(store: Store, ctx: SeedContext) -> None:
    """Repositories and tags for the scale (see the module docstring)."""
    rng = ctx.rng
    registry_data(store)
    for path, names in _CORE_REPOS.items():
        project = store.project_by_path(path)
        if project is None:
            continue
        for name in names:
            add_repository(store, project, name, make_tags(rng, store.anchor, rng.randrange(20, 45)),
                           project.created_at + timedelta(days=rng.randrange(1, 30)))
    core = {project.id for path in _CORE_REPOS if (project := store.project_by_path(path)) is not None}
    generated = [p for p in store.projects.values() if p.id not in core and p.namespace_kind == "group"]
    if ctx.scale == "large":
        generated = generated[:100]
    for project in generated:
        for name in rng.sample(_REPO_NAMES, rng.choice((0, 1, 1, 2, 3))):
            add_repository(store, project, name, make_tags(rng, store.anchor, rng.randrange(6, 40)))
    if ctx.scale == "large":
        _seed_large(store, rng)


def _seed_large(store: Store, rng: random.Random) -> None:
    gateway = store.project_by_path("acme/platform/api-gateway")
    assert gateway is not None
    add_repository(store, gateway, "nightly", bulk_tags(rng, store.anchor, LARGE_BIG_REPOSITORY_TAGS,
                                                        "nightly-"))
    spread = LARGE_EXTRA_TAGS - LARGE_BIG_REPOSITORY_TAGS
    projects = [p for p in store.projects.values() if p.namespace_kind == "group"][:50]
    for project in projects:
        add_repository(store, project, "snapshots",
                       bulk_tags(rng, store.anchor, spread // len(projects), "snapshot-"))
