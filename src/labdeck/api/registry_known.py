"""What this process already knows of registry repositories' storage (from tag details it read), so that the
overview can name the largest repositories without a single request."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class KnownRepository:
    instance: str
    repository_id: int
    path: str
    project: str
    tags: int
    bytes: int  # shared digests counted once
    at: float


class KnownRepositories:
    """The latest storage figure per instance and repository."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._known: dict[tuple[str, int], KnownRepository] = {}

    def record(self, instance: str, repository_id: int, path: str, project: str,
               sizes: Iterable[tuple[str | None, int | None]]) -> None:
        """Note a repository's tags as `(digest, total_size)` pairs (a digest shared by tags counts once)."""
        seen: dict[str, int] = {}
        count = 0
        for digest, size in sizes:
            count += 1
            seen[digest or f"#{count}"] = size or 0
        self._known[(instance, repository_id)] = KnownRepository(
            instance, repository_id, path, project, count, sum(seen.values()), self.clock())

    def largest(self, instance: str, n: int = 5) -> list[KnownRepository]:
        mine = [r for (i, _), r in self._known.items() if i == instance]
        return sorted(mine, key=lambda r: r.bytes, reverse=True)[:n]

    def get(self, instance: str, repository_id: int) -> KnownRepository | None:
        return self._known.get((instance, repository_id))


KNOWN = KnownRepositories()
