"""The repositories list of `:registry` and of the project view's Registry tab: its columns (path, name, tags,
size, id, created, status), a repository's detail, and its sizes: a repository's unique blobs
(`domain.registry_sizes`, the figure of every screen and the CLI), known at once for a repository this session
has read, else read in the background a few repositories at a time (`api.registry_paths.repository_sizes`),
each row redrawn as its size comes.
"""

from __future__ import annotations

from rich.text import Text
from textual.dom import DOMNode

from labdeck.api.errors import LabdeckError
from labdeck.api.models.registry import RegistryRepository
from labdeck.api.registry import RegistryService
from labdeck.api.registry_known import known_for
from labdeck.api.registry_paths import repository_sizes
from labdeck.domain.registry_sizes import SIZE_HEADER, SIZE_MEANS, Figure, size_text
from labdeck.tui.context import context_of
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.table_model import Column
from labdeck.tui.workers import is_live

Sizes = dict[int, Figure | str]  # a repository's size, or why it could not be read


def size_cell(sizes: Sizes, repo: RegistryRepository) -> Text:
    """The repository's unique blobs; `…` while it is read, `?` when it could not be."""
    found = sizes.get(repo.id)
    if found is None:
        return Text("…", style="dim")
    return Text("?", style="dim") if isinstance(found, str) else Text(size_text(found))


def _size_key(sizes: Sizes, repo: RegistryRepository) -> int:
    found = sizes.get(repo.id)
    return found.bytes if isinstance(found, Figure) else -1


def _size_data(sizes: Sizes, repo: RegistryRepository) -> int | None:
    found = sizes.get(repo.id)
    return found.bytes if isinstance(found, Figure) else None


def _size_exact(sizes: Sizes, repo: RegistryRepository) -> bool | None:
    found = sizes.get(repo.id)
    return found.exact if isinstance(found, Figure) else None


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
               sort_key=lambda r: _size_key(sizes, r), text=lambda r: size_cell(sizes, r),
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
    found = (sizes or {}).get(repo.id)
    size = size_text(found) if isinstance(found, Figure) else found or "not read yet"
    return append_fields(Text(repo.path or repo.display_name, style="bold"), (
        ("id", str(repo.id)), ("project id", str(repo.project_id or "")), ("location", repo.location or ""),
        ("tags", str(repo.tags_count or 0)), ("size", f"{size} ({SIZE_MEANS})"),
        ("status", repo.status or "")), width=12)


def known_sizes(owner: DOMNode, repos: list[RegistryRepository], sizes: Sizes) -> list[RegistryRepository]:
    """Fill `sizes` with what this session already knows (no request); the repositories still to read."""
    client = context_of(owner).services.client
    known = known_for(client)
    instance = client.settings.base_url
    missing = []
    for repo in repos:
        record = known.get(instance, repo.id)
        if record is not None:
            sizes[repo.id] = record.size
        else:
            missing.append(repo)
    return missing


async def read_sizes(owner: DOMNode, service: RegistryService, table: ResourceTable,
                     repos: list[RegistryRepository], sizes: Sizes) -> None:
    """The sizes not known yet, read a few repositories at a time; each row redrawn as its size comes."""
    missing = known_sizes(owner, repos, sizes)
    if not missing:
        return

    def found(repo: RegistryRepository, figure: Figure | LabdeckError) -> None:
        sizes[repo.id] = figure if isinstance(figure, Figure) else str(figure)
        if is_live(owner):
            table.replace_row(repo)

    await repository_sizes(service, missing, on_size=found)
