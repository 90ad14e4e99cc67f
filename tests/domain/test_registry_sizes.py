"""The registry's figures, each defined once (`domain.registry_sizes`): a repository's size is its unique
blobs (a layer shared by tags or images counted once, as GitLab's registry counts `size` and
`statistics.container_registry_size`), and what a deletion frees is the blobs no kept tag still references."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.registry_cleanup import CleanupRules, TagInfo, plan
from labdeck.domain.registry_sizes import (
    BlobIndex,
    Figure,
    blobs_of,
    freed_by,
    repository_size,
    size_text,
)

NOW = datetime(2024, 6, 1, tzinfo=UTC)
BASE = (("sha256:base1", 600), ("sha256:base2", 300))


def image(name: str, days: float, digest: str, own: int) -> TagInfo:
    """A tag whose manifest is the shared base layers plus one layer of its own."""
    layers = (*BASE, (f"sha256:own-{digest}", own))
    return TagInfo(name, NOW - timedelta(days=days), f"sha256:{digest}", sum(s for _, s in layers), layers)


def test_shared_layers_count_once() -> None:
    tags = [image("a", 3, "a", 100), image("b", 2, "b", 50), image("b-again", 2, "b", 50)]
    # tag sizes (GitLab's total_size) count the base in every image: 1000 + 950 + 950
    assert sum(t.total_size or 0 for t in tags) == 2900
    # the repository holds the base once, and each image's own layer once
    assert repository_size(tags) == Figure(600 + 300 + 100 + 50, exact=True)


def test_a_deletion_frees_only_blobs_no_kept_tag_uses() -> None:
    tags = [image("a", 30, "a", 100), image("b", 20, "b", 50), image("latest", 1, "c", 70)]
    # deleting a and b: their own layers go, the base stays (latest still uses it)
    assert freed_by(tags, [0, 1]) == Figure(150, exact=True)
    # deleting every tag frees the whole repository
    assert freed_by(tags, [0, 1, 2]) == repository_size(tags)
    # the bulk planner reports the same figure
    result = plan(tags, CleanupRules(".*"), NOW)
    assert result.deleted_count == 2 and result.bytes_freed == 150


def test_without_layers_a_manifest_is_one_blob_and_the_figure_is_an_upper_bound() -> None:
    tags = [TagInfo("a", NOW, "sha256:x", 900), TagInfo("b", NOW, "sha256:x", 900),
            TagInfo("c", NOW, None, 70), TagInfo("d", NOW, "sha256:y", None)]
    assert blobs_of(tags[0]) == blobs_of(tags[1])  # the same manifest, the same blob
    size = repository_size(tags)
    assert size == Figure(970, exact=False)
    assert size_text(size) == "≤ 970 B"
    assert size_text(Figure(1_234_000_000, exact=True)) == "1.2 GB"
    assert freed_by(tags, [0]) == Figure(0, exact=False)  # b still holds the manifest


layer = st.tuples(st.sampled_from([f"sha256:l{i}" for i in range(12)]), st.integers(0, 10**9))
tag_layers = st.lists(layer, min_size=0, max_size=5, unique_by=lambda blob: blob[0])


@st.composite
def repositories(draw: st.DrawFn) -> list[TagInfo]:
    """Tags over a pool of layers; a blob's size is fixed by its digest (the same bytes), some tags share a
    manifest, some have no layers known."""
    sizes = {f"sha256:l{i}": draw(st.integers(0, 10**9)) for i in range(12)}
    tags = []
    for index in range(draw(st.integers(0, 12))):
        chosen = draw(st.lists(st.sampled_from(sorted(sizes)), max_size=5, unique=True))
        layers = tuple((digest, sizes[digest]) for digest in chosen)
        known = draw(st.booleans())
        tags.append(TagInfo(f"t{index}", NOW, f"sha256:m{draw(st.integers(0, 8))}" if not known else
                            f"sha256:k{index}", sum(s for _, s in layers) if known else draw(
                                st.integers(0, 10**9)), layers if known else None))
    return tags


@given(repositories(), st.data())
def test_a_deletion_never_frees_more_than_the_repository_holds(tags: list[TagInfo],
                                                               data: st.DataObject) -> None:
    deleted = data.draw(st.lists(st.integers(0, max(len(tags) - 1, 0)), unique=True)) if tags else []
    freed, size = freed_by(tags, deleted), repository_size(tags)
    assert 0 <= freed.bytes <= size.bytes
    assert freed.exact == size.exact


@given(repositories())
def test_freeing_every_tag_frees_the_size(tags: list[TagInfo]) -> None:
    assert freed_by(tags, range(len(tags))) == repository_size(tags)
    assert freed_by(tags, []).bytes == 0


@given(repositories(), st.data())
def test_freeing_grows_with_what_is_deleted(tags: list[TagInfo], data: st.DataObject) -> None:
    """Deleting more never frees less; an index prepared once answers as the one-off functions do."""
    index = BlobIndex(tags)
    order = data.draw(st.permutations(range(len(tags))))
    freed = [index.freed(order[:n]).bytes for n in range(len(order) + 1)]
    assert freed == sorted(freed)
    assert index.size == repository_size(tags)


@given(st.lists(tag_layers, min_size=1, max_size=6))
def test_shared_layers_are_counted_once_whatever_the_tags(
        layer_sets: list[tuple[tuple[str, int], ...]]) -> None:
    sizes: dict[str, int] = {}
    tags = []
    for number, layers in enumerate(layer_sets):
        fixed = tuple((digest, sizes.setdefault(digest, size)) for digest, size in layers)
        tags.append(TagInfo(f"t{number}", NOW, f"sha256:m{number}", sum(s for _, s in fixed), fixed))
    assert repository_size(tags) == Figure(sum(sizes.values()), exact=True)
