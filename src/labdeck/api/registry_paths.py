"""Finding a registry repository as an operator names it, and each repository's size:

- by its path, `group/project/image` (its location without the registry host; a project's own path is its
  root image), as the registry screens and `labdeck registry list` show it;
- by its project and its name (`--repository worker`; `(root)` or an empty name for the root image);
- by its id, checked to be the named project's: GitLab's GraphQL reads a repository by its id alone, so
  without the check a preview of `acme/platform/api-gateway 99` read another project's tags.

`repository_size` gives a repository's unique blobs (`domain.registry_sizes`) by the cheapest request GitLab
has for it: `GET /registry/repositories/:id?size=true`, the registry's own deduplicated size, one request
(`doc/api/container_registry.md`, "Get details of a single repository"; `lib/api/container_repositories.rb`).
GitLab has that figure only where its registry has the metadata database (gitlab.com; a self-managed
registry with it): elsewhere the answer says `"size": null` (`app/models/container_repository.rb#size`), and
before the parameter existed it leaves the key out. Only then is the figure computed from the repository's
tag details (`RegistryService.tag_details`: every tag, and the manifests' layers; the tag-detail cache makes
a second read cheap). `repository_sizes` reads several, a few repositories at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass

from labdeck.api import bindings as b
from labdeck.api.errors import LabdeckError, NotFound
from labdeck.api.models.registry import RegistryRepository
from labdeck.api.registry import RegistryService
from labdeck.api.registry_known import known_for
from labdeck.domain import catalogue as ep
from labdeck.domain.digits import parse_digits
from labdeck.domain.registry_sizes import Figure
from labdeck.domain.registry_sizes import repository_size as unique_blobs

ROOT_NAMES = ("", "(root)")
SIZES_AT_ONCE = 4


class RepositoryNotFound(LabdeckError):
    """No repository answers to the name or path given."""


class NotTheProjectsRepository(LabdeckError):
    """A repository id of another project than the one named."""


@dataclass(frozen=True)
class ProjectRef:
    id: int
    path: str


def owner_path(repo: RegistryRepository) -> str:
    """The path of the repository's project: its own path without its name."""
    path = repo.path or ""
    return path[: -len(repo.name) - 1] if repo.name and path.endswith("/" + repo.name) else path


async def project_ref(service: RegistryService, project: str) -> ProjectRef:
    """The project's id and full path (`GET /projects/:id`)."""
    number = parse_digits(project)
    data = await service.client.get_json(ep.PROJECT.path(project if number is None else number))
    ident = data.get("id") if isinstance(data, dict) else None
    path = data.get("path_with_namespace") if isinstance(data, dict) else None
    if not isinstance(ident, int):
        raise LabdeckError(f"the project {project} could not be read")
    return ProjectRef(ident, str(path) if isinstance(path, str) else str(ident))


def _named(repos: list[RegistryRepository]) -> str:
    return ", ".join(r.path or r.display_name for r in repos) or "none"


async def find_repository(service: RegistryService, target: str, *, repository_id: int | None = None,
                          name: str | None = None) -> RegistryRepository:
    """The repository `target` names (a project with `repository_id` or `name`, else a repository path);
    `RepositoryNotFound` or `NotTheProjectsRepository` with the reason in words."""
    if repository_id is not None:
        project = await project_ref(service, target)
        repo = await service.repository(repository_id, tags_count=True)
        if repo.project_id != project.id:
            raise NotTheProjectsRepository(
                f"repository {repository_id} is {owner_path(repo) or repo.project_id}'s "
                f"({repo.path or repo.display_name}), not {project.path}'s")
        return repo
    if name is not None:
        repos = await service.project_repositories(target, tags_count=True)
        wanted = "" if name in ROOT_NAMES else name
        found = next((r for r in repos if r.name == wanted), None)
        if found is None:
            raise RepositoryNotFound(f"{target} has no repository named '{name}'; it has: {_named(repos)}")
        return found
    if parse_digits(target) is not None:
        raise RepositoryNotFound(f"a project id ({target}) needs a repository: its id or --repository NAME")
    segments = target.strip("/").split("/")
    for cut in range(len(segments), 1, -1):  # the deepest project first: groups nest
        holder = "/".join(segments[:cut])
        try:
            repos = await service.project_repositories(holder, tags_count=True)
        except NotFound:
            continue
        found = next((r for r in repos if (r.path or "").lower() == target.strip("/").lower()), None)
        if found is None:
            raise RepositoryNotFound(f"{holder} has no repository at {target}; it has: {_named(repos)}")
        return found
    raise RepositoryNotFound(f"no project holds a repository at {target}")


async def repository_size(service: RegistryService, repo: RegistryRepository) -> Figure:
    """The repository's size (its unique blobs): GitLab's deduplicated size where the instance has one (one
    request), else computed from its tags' details. The session's record (`known_for`) notes it."""
    project = repo.project_id or owner_path(repo)
    read = await b.REGISTRY_REPOSITORY.read(service.client, repo.id, params={"size": True})
    if read.size is not None:
        figure = Figure(read.size)  # the registry's own count of its unique blobs: exact
        known_for(service.client).record_size(service.client.settings.base_url, repo.id, repo.path or "",
                                              str(project), repo.tags_count or 0, figure)
        return figure
    details = await service.tag_details(project, repo.id, tags_count=repo.tags_count, path=repo.path)
    return unique_blobs([d.to_tag_info() for d in details])


async def repository_sizes(service: RegistryService, repos: list[RegistryRepository], *,
                           on_size: Callable[[RegistryRepository, Figure | LabdeckError], None] | None = None,
                           ) -> dict[int, Figure | LabdeckError]:
    """Each repository's size (its unique blobs, `repository_size`), or the error that kept it from being
    read, `SIZES_AT_ONCE` repositories at a time; `on_size` is told each as it is known (a list fills its
    cells as they come)."""
    gate = asyncio.Semaphore(SIZES_AT_ONCE)

    async def one(repo: RegistryRepository) -> Figure | LabdeckError:
        async with gate:
            try:
                found: Figure | LabdeckError = await repository_size(service, repo)
            except LabdeckError as error:
                found = error
        if on_size is not None:
            on_size(repo, found)
        return found

    found = await asyncio.gather(*(one(repo) for repo in repos))
    return {repo.id: figure for repo, figure in zip(repos, found, strict=True)}
