"""What a session already knows of registry repositories' storage (from tag details it read, or GitLab's own
deduplicated size of the repository), so that the overview and the registry list can name a repository's size
without a single request: its unique blobs (`domain.registry_sizes`, the one definition). One record per
client (`known_for`): what one session read never shows in another. The service keeps it true as it changes
the registry: a tag it deletes leaves the figure, a tag list it reads drops the tags gone since, a deleted
repository goes; a size GitLab gave (no tags held to take off) goes as soon as the tags change."""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from labdeck.domain.registry_sizes import Figure, Sized, repository_size


@dataclass(frozen=True)
class KnownRepository:
    instance: str
    repository_id: int
    path: str  # the repository's own path (`acme/platform/api-gateway/worker`)
    project: str
    tags: int
    at: float
    held: tuple[Sized, ...] = ()  # its tags (their details as read), when its size is theirs
    given: Figure | None = None  # a size the instance gave (no tags held)

    @cached_property
    def size(self) -> Figure:
        """Its unique blobs, counted when first asked: a simulation of 15,000 tags records every repository
        it reads, and only the overview and the registry list ask."""
        return self.given if self.given is not None else repository_size(self.held)

    @property
    def bytes(self) -> int:
        return self.size.bytes


class KnownRepositories:
    """The latest storage figure per instance and repository."""

    def __init__(self, clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._known: dict[tuple[str, int], KnownRepository] = {}

    def record(self, instance: str, repository_id: int, path: str, project: str,
               tags: Iterable[Sized]) -> None:
        """Note a repository's tags (its whole tag list): its size is their unique blobs."""
        held = tuple(tags)
        self._known[(instance, repository_id)] = KnownRepository(
            instance, repository_id, path, project, len(held), self.clock(), held)

    def record_size(self, instance: str, repository_id: int, path: str, project: str, tags: int,
                    size: Figure) -> None:
        """Note a repository's size as the instance gave it (no tag read): `tags` is its tag count."""
        self._known[(instance, repository_id)] = KnownRepository(
            instance, repository_id, path, project, tags, self.clock(), given=size)

    def forget_tags(self, instance: str, repository_id: int, names: Iterable[str]) -> None:
        """Tags deleted: the repository's figure without them."""
        gone = set(names)
        self._keep(instance, repository_id, lambda name: name not in gone)

    def keep_tags(self, instance: str, repository_id: int, names: Iterable[str]) -> None:
        """The repository's whole tag list as read now: the tags not in it are gone."""
        present = set(names)
        self._keep(instance, repository_id, lambda name: name in present)

    def forget(self, instance: str, repository_id: int) -> None:
        """The repository is deleted."""
        self._known.pop((instance, repository_id), None)

    def _keep(self, instance: str, repository_id: int, keep: Callable[[str], bool]) -> None:
        known = self._known.get((instance, repository_id))
        if known is not None and known.tags and not known.held:  # a size given whole: it is out of date
            self.forget(instance, repository_id)
        elif known is not None and not all(keep(tag.name) for tag in known.held):
            self.record(instance, repository_id, known.path, known.project,
                        (tag for tag in known.held if keep(tag.name)))

    def largest(self, instance: str, n: int = 5) -> list[KnownRepository]:
        mine = [r for (i, _), r in self._known.items() if i == instance]
        return sorted(mine, key=lambda r: r.bytes, reverse=True)[:n]

    def get(self, instance: str, repository_id: int) -> KnownRepository | None:
        return self._known.get((instance, repository_id))


_BY_CLIENT: weakref.WeakKeyDictionary[Any, KnownRepositories] = weakref.WeakKeyDictionary()


def known_for(client: Any) -> KnownRepositories:
    """The record of one client (one session of one instance)."""
    known = _BY_CLIENT.get(client)
    if known is None:
        known = _BY_CLIENT[client] = KnownRepositories()
    return known
