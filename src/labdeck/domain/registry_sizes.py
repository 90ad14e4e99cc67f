"""The container registry's storage figures, each defined once, as GitLab's registry counts them; every
screen, the CLI and the sandbox use these functions.

- A tag's size is GitLab's `total_size`: the sum of its manifest's layers (`lib/container_registry/tag.rb`,
  `total_size` = `layers.sum(&:size)`). A layer that several images share counts in each of them.
- A repository's size is its **unique blobs**: every layer blob its tagged images reference, a blob shared by
  tags or images counted once. That is GitLab's deduplicated repository `size`
  (`doc/api/container_registry.md`, "Get details of a single repository": "the deduplicated size of all
  images within the repository"; `app/models/container_repository.rb#size`, the registry's `size_bytes`) and
  how usage is counted (`doc/user/packages/container_registry/reduce_container_registry_storage.md`, "How
  container registry usage is calculated": a layer shared across images counts once, only layers referenced
  by tagged images count, and a layer's size is the size its manifest gives). A project's
  `statistics.container_registry_size` is the sum of its repositories' sizes (GitLab MR 142362; the groups
  API says the same of a group's).
- What a deletion **frees** is the blobs no kept tag still references: deleting a tag removes no blob at once
  (`DELETE .../tags/:tag_name`: "This operation does not delete blobs"), garbage collection later removes the
  blobs nothing tagged uses. So a deletion never frees more than the repository holds, and deleting every tag
  frees the whole size.

A tag's blobs are its layers (digest, size) where the instance gave them (GitLab's GraphQL
`containerRepository.manifest`); where it gave only the manifest's digest and `total_size` (REST), the
manifest stands for one blob of that size. Layers shared between different manifests then count once per
manifest, so both figures are upper bounds: `Figure.exact` is False and `size_text` says `≤`.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Protocol

Blob = tuple[str, int]  # (digest, size in bytes)

SIZE_HEADER: Final = "Size (unique blobs)"
FREES_HEADER: Final = "Frees (blobs no kept tag uses)"
SIZE_MEANS: Final = "unique blobs: every layer its tags use, a shared layer counted once"
FREES_MEANS: Final = "blobs no kept tag uses: what garbage collection can then remove"
TAG_SIZE_MEANS: Final = "all its layers (GitLab's total_size; shared layers count in every tag)"
UPPER_BOUND: Final = "≤ "


class Sized(Protocol):
    """A tag as the figures read it (a `TagInfo`, or an API model of a tag detail)."""

    @property
    def name(self) -> str: ...

    @property
    def digest(self) -> str | None: ...

    @property
    def total_size(self) -> int | None: ...

    @property
    def layers(self) -> tuple[Blob, ...] | None: ...


@dataclass(frozen=True, slots=True)
class Figure:
    """Bytes, and whether every tag's layers were known (else the figure is an upper bound)."""

    bytes: int
    exact: bool = True


def format_size(size: int | None) -> str:
    """`1.2 GB`, `350 MB`, `0 B` (decimal units, as the registry's UI shows sizes); `—` when unknown."""
    if size is None:
        return "—"
    value = float(size)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            return f"{value:.0f} {unit}" if unit == "B" or value >= 100 else f"{value:.1f} {unit}"
        value /= 1000
    return f"{value:.1f} TB"  # pragma: no cover


def size_text(figure: Figure | None) -> str:
    """A figure for the screen: `1.2 GB`, `≤ 1.2 GB` when it is an upper bound, `—` when unknown."""
    if figure is None:
        return "—"
    return ("" if figure.exact else UPPER_BOUND) + format_size(figure.bytes)


def blobs_of(tag: Sized) -> tuple[Blob, ...]:
    """The blobs a tag references: its layers, or its manifest as one blob of `total_size` (a tag without a
    digest counts alone)."""
    if tag.layers is not None:
        return tag.layers
    key = f"manifest:{tag.digest}" if tag.digest else f"tag:{tag.name}"
    return ((key, tag.total_size or 0),)


class BlobIndex:
    """A repository's tags prepared once: which blobs each references and how many tags reference each, so
    that a plan recomputed per keystroke asks only `freed(deleted)`."""

    __slots__ = ("_refs", "_sizes", "_tag_blobs", "exact", "size")

    def __init__(self, tags: Sequence[Sized]) -> None:
        known: dict[str, tuple[Blob, ...]] = {}  # a manifest's layers, when any tag of it gave them
        for tag in tags:
            if tag.layers is not None and tag.digest:
                known.setdefault(tag.digest, tag.layers)
        ids: dict[str, int] = {}
        self._sizes: list[int] = []
        self._refs: list[int] = []
        self._tag_blobs: list[tuple[int, ...]] = []
        exact = True
        for tag in tags:
            layers = tag.layers if tag.layers is not None else known.get(tag.digest or "")
            if layers is None:
                exact = False
                blobs = blobs_of(tag)
            else:
                blobs = layers
            mine: list[int] = []
            for digest, size in blobs:
                number = ids.get(digest)
                if number is None:
                    number = ids[digest] = len(self._sizes)
                    self._sizes.append(max(size, 0))
                    self._refs.append(0)
                else:  # the same blob is the same bytes; a manifest stand-in takes its largest report
                    self._sizes[number] = max(self._sizes[number], size)
                if number not in mine:
                    mine.append(number)
                    self._refs[number] += 1
            self._tag_blobs.append(tuple(mine))
        self.exact = exact
        self.size = Figure(sum(self._sizes), exact)

    def freed(self, deleted: Iterable[int]) -> Figure:
        """The bytes the tags at these indices free: the blobs every referencing tag of which is deleted."""
        gone: dict[int, int] = {}
        for index in set(deleted):
            for number in self._tag_blobs[index]:
                gone[number] = gone.get(number, 0) + 1
        refs, sizes = self._refs, self._sizes
        return Figure(sum(sizes[n] for n, count in gone.items() if count == refs[n]), self.exact)


def repository_size(tags: Sequence[Sized]) -> Figure:
    """A repository's size: its unique blobs."""
    return BlobIndex(tags).size


def freed_by(tags: Sequence[Sized], deleted: Iterable[int]) -> Figure:
    """What deleting the tags at indices `deleted` frees: the blobs no kept tag still references."""
    return BlobIndex(tags).freed(deleted)


def total_size(figures: Iterable[Figure]) -> Figure:
    """Figures added up (a project's repositories): exact only when each is."""
    found = list(figures)
    return Figure(sum(f.bytes for f in found), all(f.exact for f in found))
