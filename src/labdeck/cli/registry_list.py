"""`labdeck registry list`: a project's (or a group's) registry repositories, each with its id (what
`labdeck registry plan PROJECT REPOSITORY_ID` takes), its path (what `labdeck registry plan PATH` takes), its
tag count and its size: its unique blobs (`domain.registry_sizes`, the figure every screen shows).

    labdeck registry list PROJECT_OR_GROUP [--json] [--no-sizes] [--no-cache] [--no-graphql]
                          [--instance NAME] [--config FILE] [--demo]

Sizes need every tag's detail (and each manifest's layers, through GraphQL; without them a size is an upper
bound, shown `≤`); `--no-sizes` lists the repositories alone. An API error is one line on stderr, exit 1.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from labdeck.cli.support import add_reading_options, project_ref, registry_session, render_json

if TYPE_CHECKING:
    import httpx

    from labdeck.api.errors import LabdeckError
    from labdeck.api.models.registry import RegistryRepository
    from labdeck.domain.registry_sizes import Figure


def add_parser(commands: Any) -> None:
    listing = commands.add_parser("list",
                                  help="a project's repositories: path, id, tags, size (unique blobs)")
    listing.add_argument("project", metavar="PROJECT", help="project (or group) full path or id")
    listing.add_argument("--json", action="store_true", help="print the repositories as JSON")
    listing.add_argument("--no-sizes", action="store_true",
                         help="do not read the tags for sizes (the repositories alone)")
    add_reading_options(listing)


def size_json(found: Figure | LabdeckError | None) -> dict[str, Any] | None:
    from labdeck.domain.registry_sizes import SIZE_MEANS, Figure, size_text

    if not isinstance(found, Figure):
        return None
    return {"bytes": found.bytes, "exact": found.exact, "text": size_text(found), "means": SIZE_MEANS}


def listing_json(project: str, repos: list[RegistryRepository],
                 sizes: dict[int, Figure | LabdeckError]) -> dict[str, Any]:
    """Each repository; `size` None when not read (`size_error` says why when reading failed)."""
    out = []
    for r in repos:
        found = sizes.get(r.id)
        entry = {"id": r.id, "name": r.name, "path": r.path, "location": r.location,
                 "project_id": r.project_id, "tags_count": r.tags_count, "size": size_json(found)}
        if found is not None and entry["size"] is None:
            entry["size_error"] = str(found)
        out.append(entry)
    return {"project": project, "repositories": out}


def listing_text(repos: list[RegistryRepository], sizes: dict[int, Figure | LabdeckError]) -> str:
    from labdeck.domain.registry_sizes import SIZE_HEADER, Figure, size_text
    from labdeck.domain.text import sanitize

    paths = [sanitize(r.path or r.display_name) for r in repos]
    width = max([len(p) for p in paths] + [4])
    ids = max([len(str(r.id)) for r in repos] + [2])
    lines = [f"{'ID':>{ids}}  {'PATH':{width}}  {'TAGS':>6}  {SIZE_HEADER.upper()}"]
    for repo, path in zip(repos, paths, strict=True):
        found = sizes.get(repo.id)
        size = size_text(found) if isinstance(found, Figure) else \
            "" if found is None else f"unknown: {sanitize(str(found))}"
        count = "" if repo.tags_count is None else f"{repo.tags_count:,}"
        lines.append(f"{repo.id:>{ids}}  {path:{width}}  {count:>6}  {size}".rstrip())
    if not repos:
        lines.append("no repositories")
    return "\n".join(lines)


async def run_list(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None) -> str:
    from labdeck.api.errors import NotFound
    from labdeck.api.registry_paths import repository_sizes

    ref = project_ref(args.project)
    async with registry_session(args, transport) as (_client, service):
        try:
            repos = await service.project_repositories(ref, tags_count=True)
        except NotFound:
            repos = await service.group_repositories(ref, tags_count=True)
        sizes = {} if args.no_sizes else await repository_sizes(service, repos)
    return render_json(listing_json(args.project, repos, sizes)) if args.json else listing_text(repos, sizes)
