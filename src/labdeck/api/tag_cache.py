"""Container registry tag details cached across runs: one small JSON file per instance in the user cache
folder (`$LABDECK_CACHE_DIR`, else the platform's, e.g. `~/.cache/labdeck/registry-tags-<hash>.json`),
0600 from its first byte, replaced atomically.

Per repository it keeps two tables: what each digest is (`created_at`, `total_size`, `revision`: facts of a
manifest that never change, so they never expire) and which digest each tag name pointed at when last read
(names move, `latest` above all, so that table is trusted for `name_ttl` seconds only). A warm read lists
the names (cheap, concurrent pages) and asks details only for names the cache cannot answer. Tag details
are not secrets (no token, no CI variable value), so the rules of the list cache do not apply.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from labdeck.api.models.registry import RegistryTagDetail

NAME_TTL = 900.0
VERSION = 1


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

    @classmethod
    def for_instance(cls, instance: str, folder: Path | None = None) -> TagDetailCache:
        return cls(cache_path(instance, folder))

    def _load(self) -> dict[str, Any]:
        if self._data is None:
            self._data = {}
            if self.path is not None:
                with contextlib.suppress(OSError, ValueError):
                    data = json.loads(self.path.read_text("utf-8"))
                    if isinstance(data, dict) and data.get("version") == VERSION:
                        self._data = data.get("repositories") or {}
        return self._data

    def _repo(self, repository_id: int) -> dict[str, Any]:
        repo = self._load().setdefault(str(int(repository_id)), {})
        if not isinstance(repo.get("digests"), dict) or not isinstance(repo.get("names"), dict):
            repo.update(digests={}, names={}, names_at=0.0)
        return repo

    def lookup(self, repository_id: int, names: Iterable[str]) -> dict[str, RegistryTagDetail]:
        """The details the cache can answer for `names` (names read within `name_ttl`, digest known)."""
        repo = self._repo(repository_id)
        if self.clock() - float(repo.get("names_at") or 0) > self.name_ttl:
            return {}
        found: dict[str, RegistryTagDetail] = {}
        for name in names:
            digest = repo["names"].get(name)
            facts = repo["digests"].get(digest) if digest else None
            if facts is None:
                continue
            with contextlib.suppress(ValueError, TypeError):
                found[name] = RegistryTagDetail.model_validate(
                    {"name": name, "digest": digest, "created_at": facts.get("created_at"),
                     "total_size": facts.get("total_size"), "revision": facts.get("revision"),
                     "published_at": repo.get("published", {}).get(name)})
        return found

    def store(self, repository_id: int, details: Iterable[RegistryTagDetail]) -> None:
        """Record a complete read of a repository: its names now, and the facts of every digest."""
        repo = self._repo(repository_id)
        names: dict[str, str] = {}
        published: dict[str, str] = {}
        for detail in details:
            if not detail.digest:
                continue
            names[detail.name] = detail.digest
            if detail.published_at is not None:
                published[detail.name] = detail.published_at.isoformat()
            repo["digests"][detail.digest] = {
                "created_at": detail.created_at.isoformat() if detail.created_at else None,
                "total_size": detail.total_size, "revision": detail.revision}
        repo.update(names=names, published=published, names_at=self.clock())
        self.save()

    def forget_names(self, repository_id: int) -> None:
        """After a delete: the names are no longer what they were (digest facts stay true)."""
        repo = self._repo(repository_id)
        repo.update(names={}, published={}, names_at=0.0)
        self.save()

    def save(self) -> None:
        if self.path is None or self._data is None:
            return
        with contextlib.suppress(OSError):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, temp = tempfile.mkstemp(prefix=".registry-tags-", dir=self.path.parent)  # 0600 already
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    json.dump({"version": VERSION, "repositories": self._data}, out, separators=(",", ":"))
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(temp)
                raise
