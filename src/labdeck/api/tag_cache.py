"""Container registry tag details cached across runs: one small JSON file per instance in the user cache
folder (`$LABDECK_CACHE_DIR`, else the platform's, e.g. `~/.cache/labdeck/registry-tags-<hash>.json`),
0600 from its first byte, replaced atomically.

Per repository it keeps two tables: what each digest is (`created_at`, `total_size`, `revision` and, once
read, its layers: facts of a manifest that never change, so they never expire) and which digest each tag
name pointed at when it was last read from the server (names move, `latest` above all, so each is trusted
for `name_ttl` seconds after that read; a read answered from the cache does not make it younger). A warm
read lists the names (cheap, concurrent pages) and asks details only for names the cache cannot answer.
Tag details are not secrets (no token, no CI variable value), so the rules of the list cache do not apply.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from labdeck.api.body import exact_loads
from labdeck.api.models.registry import RegistryTagDetail, trusted_detail
from labdeck.api.private_files import write_private
from labdeck.domain.registry_sizes import Blob

NAME_TTL = 900.0
VERSION = 2


def _time(text: Any) -> datetime | None:
    return datetime.fromisoformat(text) if isinstance(text, str) else None


Facts = tuple[datetime | None, int | None, str | None, tuple[Blob, ...] | None]


def _layers(value: Any) -> tuple[Blob, ...] | None:
    """Cached layers (`[[digest, size], ...]`); None when absent or unreadable."""
    if not isinstance(value, list):
        return None
    out: list[Blob] = []
    for layer in value:
        if not (isinstance(layer, list) and len(layer) == 2 and isinstance(layer[0], str)
                and isinstance(layer[1], int) and not isinstance(layer[1], bool)):
            return None
        out.append((layer[0], layer[1]))
    return tuple(out)


def _manifest(facts: Any) -> Facts | None:
    """A digest's cached facts (created at, total size, revision, layers when read); None when unreadable."""
    if not isinstance(facts, list) or len(facts) not in (3, 4):
        return None
    created, size, revision = facts[:3]
    try:
        when = _time(created)
    except (TypeError, ValueError):
        return None
    return (when, size if isinstance(size, int) and not isinstance(size, bool) else None,
            revision if isinstance(revision, str) else None, _layers(facts[3]) if len(facts) == 4 else None)


def _encode(value: Any) -> bytes:
    """orjson; the standard encoder for what orjson refuses (an integer beyond 64 bits: a hostile size)."""
    try:
        return orjson.dumps(value)
    except TypeError:
        return json.dumps(value, separators=(",", ":")).encode()


def _decode(raw: bytes) -> Any:
    """orjson; the standard decoder when the file holds an integer beyond 64 bits (`body.exact_loads`)."""
    return exact_loads(raw)


def user_cache_dir() -> Path:
    """`$LABDECK_CACHE_DIR`, else the platform's user cache folder for labdeck."""
    override = os.environ.get("LABDECK_CACHE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_cache_path

    return user_cache_path("labdeck", appauthor=False)


def cache_path(instance: str, folder: Path | None = None) -> Path:
    digest = hashlib.sha256(instance.rstrip("/").encode()).hexdigest()[:16]
    return (folder or user_cache_dir()) / f"registry-tags-{digest}.json"


class TagDetailCache:
    """Tag details of one instance's repositories (`path=None`: in memory only)."""

    def __init__(self, path: Path | None, *, name_ttl: float = NAME_TTL,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = path
        self.name_ttl = name_ttl
        self.clock = clock
        self._data: dict[str, Any] | None = None
        self._deferred = 0
        self._dirty = False

    @classmethod
    def for_instance(cls, instance: str, folder: Path | None = None) -> TagDetailCache:
        return cls(cache_path(instance, folder))

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {}
            if self.path is not None:
                with contextlib.suppress(OSError, ValueError):  # orjson's errors are ValueErrors
                    data = _decode(self.path.read_bytes())
                    if isinstance(data, dict) and data.get("version") == VERSION:
                        repositories = data.get("repositories")
                        self._data = repositories if isinstance(repositories, dict) else {}
        return self._data

    def _repo(self, repository_id: int) -> dict[str, Any]:
        repo: dict[str, Any] = self._load().setdefault(str(int(repository_id)), {})
        if not isinstance(repo.get("digests"), dict) or not isinstance(repo.get("names"), dict):
            repo.update(digests={}, names={})
        return repo

    def holds_names(self, repository_id: int) -> bool:
        """Whether names of this repository were read from the server within `name_ttl`."""
        oldest = self.clock() - self.name_ttl
        names = self._repo(repository_id)["names"]
        return any(isinstance(e, list) and len(e) == 3 and isinstance(e[1], (int, float)) and e[1] >= oldest
                   for e in names.values())

    def lookup(self, repository_id: int, names: Iterable[str]) -> dict[str, RegistryTagDetail]:
        """The details the cache can answer for `names`: the name read within `name_ttl`, its digest known.
        Built without validation (the cache holds what was parsed and sanitised when it was read)."""
        repo = self._repo(repository_id)
        oldest = self.clock() - self.name_ttl
        entries, digests = repo["names"], repo["digests"]
        found: dict[str, RegistryTagDetail] = {}
        manifests: dict[str, Facts | None] = {}
        for name in names:
            entry = entries.get(name)
            if not isinstance(entry, list) or len(entry) != 3 or not entry[1] >= oldest:
                continue
            digest, _read_at, published = entry
            if not isinstance(digest, str):
                continue
            if digest not in manifests:  # tags often share a manifest: its facts are read once
                manifests[digest] = _manifest(digests.get(digest))
            facts = manifests[digest]
            if facts is None:
                continue
            try:
                published_at = _time(published)
            except (TypeError, ValueError):
                continue
            created, size, revision, layers = facts
            found[name] = trusted_detail(name=name, digest=digest, created_at=created,
                                         published_at=published_at, total_size=size, revision=revision,
                                         **({} if layers is None else {"layers": layers}))
        return found

    def layers(self, repository_id: int, digests: Iterable[str]) -> dict[str, tuple[Blob, ...]]:
        """The layers the cache holds for these manifests (a digest's layers never change)."""
        table = self._repo(repository_id)["digests"]
        found: dict[str, tuple[Blob, ...]] = {}
        for digest in digests:
            facts = _manifest(table.get(digest))
            if facts is not None and facts[3] is not None:
                found[digest] = facts[3]
        return found

    def store(self, repository_id: int, details: Iterable[RegistryTagDetail],
              fetched: Iterable[str] | None = None) -> None:
        """Record a read of a repository: `details` are all its tags now; those named in `fetched` (all of
        them when None) came from the server now, the others from this cache (their time is kept)."""
        repo = self._repo(repository_id)
        now = self.clock()
        fresh = None if fetched is None else set(fetched)
        old, digests = repo["names"], repo["digests"]
        names: dict[str, list[Any]] = {}
        for detail in details:
            if not detail.digest:
                continue
            if fresh is not None and detail.name not in fresh and isinstance(old.get(detail.name), list):
                names[detail.name] = old[detail.name]
                facts = digests.get(detail.digest)
                if detail.layers is not None and isinstance(facts, list) and len(facts) in (3, 4):
                    digests[detail.digest] = [*facts[:3], [list(layer) for layer in detail.layers]]
                continue
            published = detail.published_at.isoformat() if detail.published_at else None
            names[detail.name] = [detail.digest, now, published]
            held = _manifest(digests.get(detail.digest))
            layers = detail.layers if detail.layers is not None else held[3] if held is not None else None
            digests[detail.digest] = [detail.created_at.isoformat() if detail.created_at else None,
                                      detail.total_size, detail.revision,
                                      None if layers is None else [list(layer) for layer in layers]]
        repo["names"] = names
        self.save()

    def forget_names(self, repository_id: int) -> None:
        """After a delete: the names are no longer what they were (digest facts stay true)."""
        self._repo(repository_id)["names"] = {}
        self.save()

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        """Within it, reads of many repositories write the file once, at the end (not once each)."""
        self._deferred += 1
        try:
            yield
        finally:
            self._deferred -= 1
            if not self._deferred and self._dirty:
                self.save()

    def save(self) -> None:
        if self._deferred:
            self._dirty = True
            return
        self._dirty = False
        if self.path is None or self._data is None:
            return
        with contextlib.suppress(OSError):  # a cache that cannot be saved is read again next time
            data = _encode({"version": VERSION, "repositories": self._data})
            write_private(self.path, data, own_folder=True)
