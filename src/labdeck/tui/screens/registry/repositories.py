"""The repositories list of `:registry` and of the project view's Registry tab: its columns (path, name, tags,
size, id, created, status) and a repository's detail. The size is a repository's unique blobs
(`domain.registry_sizes`, the figure of every screen and the CLI), read for the rows shown
(`size_column.py`).
"""

from __future__ import annotations

from rich.text import Text

from labdeck.api.models.registry import RegistryRepository
from labdeck.domain.registry_sizes import SIZE_HEADER, SIZE_MEANS
from labdeck.tui.screens.registry.size_column import Sizes
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.table_model import Column


def _size_data(sizes: Sizes, repo: RegistryRepository) -> int | None:
    figure = sizes.figure(repo)
    return figure.bytes if figure is not None else None


def _size_key(sizes: Sizes, repo: RegistryRepository) -> int:
    figure = sizes.figure(repo)
    return figure.bytes if figure is not None else -1


def _size_exact(sizes: Sizes, repo: RegistryRepository) -> bool | None:
    figure = sizes.figure(repo)
    return figure.exact if figure is not None else None


def repository_columns(sizes: Sizes) -> list[Column]:
    """The repositories' columns; the size cells read `sizes` (filled as the sizes are read)."""
    return [
        Column("path", "Repository", min_width=20, priority=10,
               text=lambda r: Text(r.path or r.display_name), data=lambda r: r.path or r.display_name),
        Column("name", "Name", min_width=8, priority=2,
               text=lambda r: Text(r.name or "(root)", style="" if r.name else "dim"),
               data=lambda r: r.name),  # "" for the project's root image, as GitLab says it
        Column("tags", "Tags", width=7, priority=6, align="right", sort_key=lambda r: r.tags_count or 0,
               text=lambda r: Text("" if r.tags_count is None else f"{r.tags_count:,}"),
               data=lambda r: r.tags_count),
        Column("size", SIZE_HEADER, width=len(SIZE_HEADER), priority=7, align="right",
               sort_key=lambda r: _size_key(sizes, r), text=sizes.cell,
               data=lambda r: _size_data(sizes, r),  # bytes: its unique blobs (None until read)
               extra_data=(("size_exact", lambda r: _size_exact(sizes, r)),)),
        Column("id", "ID", width=7, priority=3, align="right", text=lambda r: Text(str(r.id)),
               exported=False),  # an export carries the record's own `id` already
        Column("created", "Created", width=10, priority=4,
               text=lambda r: Text(r.created_at.strftime("%Y-%m-%d") if r.created_at else ""),
               data=lambda r: r.created_at),
        Column("status", "Status", priority=5, text=lambda r: Text(r.status or "", style="yellow"),
               data=lambda r: r.status),
    ]


def repository_detail(repo: RegistryRepository, sizes: Sizes | None = None) -> Text:
    size = sizes.words(repo) if sizes is not None else "not read yet"
    return append_fields(Text(repo.path or repo.display_name, style="bold"), (
        ("id", str(repo.id)), ("project id", str(repo.project_id or "")), ("location", repo.location or ""),
        ("tags", str(repo.tags_count or 0)), ("size", f"{size} ({SIZE_MEANS})"),
        ("status", repo.status or "")), width=12)
