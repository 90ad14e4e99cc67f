"""Container registry routes (GitLab's API docs, "Container registry"), as GitLab's
`lib/api/project_container_repositories.rb`, `group_container_repositories.rb` and
`container_repositories.rb` behave:

- lists of a project's or a group's (and its subgroups') repositories, `tags` and `tags_count` on request;
- `GET /registry/repositories/:id`; tag list (sorted by name) and tag detail (`404 Tag Not Found`);
- `DELETE` one tag: 200, at once, blobs stay; `DELETE` a repository: 202, gone after the async delay
  (meanwhile `status` is `delete_scheduled`);
- bulk delete: 202; validation like Grape (`name_regex_delete is an invalid regexp: ...`, at least one
  of `name_regex`/`name_regex_delete`), then an exclusive lease of one hour per repository (400 with
  GitLab's message). The rules are evaluated with the domain planner at the time of the request, and the
  chosen tags are removed when the scheduled completion runs, so the preview and the deletion agree.
  An `older_than` GitLab cannot read makes the background job fail: nothing is deleted.

Reading needs read access to the project; deleting needs Developer (30) or admin. A `JOB-TOKEN` reaches
only the registry of its own project.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.registry_cleanup import (
    CleanupPlanner,
    CleanupRules,
    RulesError,
    validate_pattern,
)
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, paginate
from labdeck.sandbox.routes.groups.groups import find_group
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.registry import (
    Repository,
    Tag,
    registry_data,
    repository_size,
    tag_info,
    tag_layers,
)
from labdeck.sandbox.seed.registry import seed as seed  # the area's seeding function
from labdeck.sandbox.store import Project

LEASE_SECONDS = 3600
LEASE_MESSAGE = ("This request has already been made. You can run this at most once an hour for a given "
                 "container repository")
DEVELOPER = 30


# --- lookups and access ---------------------------------------------------------------------------------

def _job_project(ctx: Ctx) -> int | None:
    token = ctx.identity.token
    return token.project_id if token is not None and token.kind == "job" else None


def _project(ctx: Ctx) -> Project:
    project = find_project(ctx)
    job_project = _job_project(ctx)
    if job_project is not None and job_project != project.id:
        raise SandboxError.not_found("Project")
    return project


def _repository(ctx: Ctx, project: Project) -> Repository:
    try:
        rid = int(ctx.path("repository_id"))
    except ValueError:
        raise SandboxError.invalid("repository_id") from None
    repo = registry_data(ctx.store).repositories.get(rid)
    if repo is None or repo.project_id != project.id:
        raise SandboxError.message(404, "404 Not found")
    return repo


def _require_developer(ctx: Ctx, project: Project) -> None:
    user = ctx.require_user()
    if user.is_admin:
        return
    if ctx.store.project_levels(user.id).get(project.id, 0) < DEVELOPER:
        raise SandboxError.forbidden()


def _tag(repo: Repository, name: str) -> Tag:
    tag = repo.tags.get(name)
    if tag is None:
        raise SandboxError.not_found("Tag")
    return tag


# --- shapes ---------------------------------------------------------------------------------------------

def _registry_host(ctx: Ctx) -> str:
    return "registry." + ctx.base.split("://", 1)[-1]


def repository_path(ctx: Ctx, repo: Repository) -> str:
    project = ctx.store.projects[repo.project_id]
    return f"{project.path_with_namespace}/{repo.name}" if repo.name else project.path_with_namespace


def tag_json(ctx: Ctx, repo: Repository, tag: Tag) -> dict[str, Any]:
    path = repository_path(ctx, repo)
    return {"name": tag.name, "path": f"{path}:{tag.name}",
            "location": f"{_registry_host(ctx)}/{path}:{tag.name}"}


def _tag_time(tag: Tag) -> str | None:
    if tag.created_at is None:
        return None
    value = tag.created_at
    return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}+00:00"


def tag_detail_json(ctx: Ctx, repo: Repository, tag: Tag) -> dict[str, Any]:
    return {**tag_json(ctx, repo, tag), "revision": tag.revision, "short_revision": tag.revision[:9],
            "digest": tag.digest, "created_at": _tag_time(tag), "total_size": tag.total_size}


_SORTED: dict[int, tuple[tuple[int, ...], list[Tag]]] = {}


def sorted_tags(repo: Repository) -> list[Tag]:
    """The repository's tags by name, sorted once per state of its tags (a page of 100 of 15,000 tags must
    not sort them all again). Adding, removing or replacing a tag, however done, changes the objects held;
    the cached list keeps them alive, so an id seen here is never reused by a newer tag."""
    objects = tuple(map(id, repo.tags.values()))
    found = _SORTED.get(repo.id)
    if found is not None and found[0] == objects:
        return found[1]
    ordered = sorted(repo.tags.values(), key=lambda t: t.name)
    _SORTED[repo.id] = (objects, ordered)
    return ordered


_BY_DIGEST: dict[int, tuple[tuple[int, ...], dict[str, Tag]]] = {}


def tag_by_reference(repo: Repository, reference: str) -> Tag | None:
    """The tag named `reference`, else a tag whose manifest has that digest (a registry's manifest
    reference is a tag or a digest); the digest index is built once per state of the tags. A tag the index
    finds is checked to be the repository's still (one look-up); only a miss compares the whole state, so
    reading 13,000 manifests of a 15,000-tag repository does not compare 15,000 tags 13,000 times."""
    found = repo.tags.get(reference)
    if found is not None or not reference.startswith("sha256:"):
        return found
    index = _BY_DIGEST.get(repo.id)
    if index is not None:
        hit = index[1].get(reference)
        if hit is not None and repo.tags.get(hit.name) is hit:
            return hit
    objects = tuple(map(id, repo.tags.values()))
    if index is None or index[0] != objects:
        index = (objects, {})
        for tag in sorted_tags(repo):  # kept alive by `sorted_tags`' cache: an id is never reused
            index[1].setdefault(tag.digest, tag)
        _BY_DIGEST[repo.id] = index
    return index[1].get(reference)


def manifest_text(tag: Tag) -> str:
    """The tag's image manifest as the registry serves it (schema 2: its config blob, its layers)."""
    return json.dumps({
        "schemaVersion": 2, "mediaType": "application/vnd.docker.distribution.manifest.v2+json",
        "config": {"mediaType": "application/vnd.docker.container.image.v1+json", "size": 1469,
                   "digest": f"sha256:{tag.revision}"},
        "layers": [{"mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip", "size": size,
                    "digest": digest} for digest, size in tag_layers(tag)]}, separators=(",", ":"))


def _can_admin_images(ctx: Ctx, project_id: int) -> bool:
    """GitLab's `admin_container_image` ability: Maintainer (40) or more, or an administrator."""
    user = ctx.user
    return user is not None and (user.is_admin or ctx.store.project_levels(user.id).get(project_id, 0) >= 40)


def repository_json(ctx: Ctx, repo: Repository, *, single: bool = False) -> dict[str, Any]:
    """GitLab's `ContainerRegistry::Repository` entity. `tags_count`, `tags` and (`single`) `size` on
    request; `delete_api_path` only where GitLab passes the user to the entity (`single`: `GET
    /registry/repositories/:id`) and that user may administer the project's images."""
    path = repository_path(ctx, repo)
    out: dict[str, Any] = {
        "id": repo.id, "name": repo.name, "path": path, "project_id": repo.project_id,
        "location": f"{_registry_host(ctx)}/{path}", "created_at": iso(repo.created_at),
        "cleanup_policy_started_at": iso(repo.cleanup_policy_started_at), "status": repo.status,
    }
    if ctx.params.bool("tags_count", False):
        out["tags_count"] = len(repo.tags)
    if ctx.params.bool("tags", False):
        out["tags"] = [tag_json(ctx, repo, tag) for tag in sorted_tags(repo)]
    if single and _can_admin_images(ctx, repo.project_id):
        api = f"{ctx.base}/api/v4/projects/{repo.project_id}"
        out["delete_api_path"] = f"{api}/registry/repositories/{repo.id}"
    if single and ctx.params.bool("size", False):  # deduplicated: the unique blobs (`domain.registry_sizes`)
        # where the registry has no metadata database GitLab exposes the key all the same, as null
        out["size"] = repository_size(repo) if ctx.options.registry_sizes else None
    return out


# --- reading --------------------------------------------------------------------------------------------

async def project_repositories(ctx: Ctx) -> Any:
    project = _project(ctx)
    repos = registry_data(ctx.store).of_projects({project.id})
    return paginate(ctx, repos, lambda r: repository_json(ctx, r))


async def group_repositories(ctx: Ctx) -> Any:
    group = find_group(ctx)
    store = ctx.store
    by_namespace = store.projects_by_namespace()
    pids = {pid for gid in (group.id, *store.descendants(group.id))
            for pid in by_namespace.get(("group", gid), [])
            if store.can_read_project(ctx.user, store.projects[pid])}
    job_project = _job_project(ctx)
    if job_project is not None:
        pids &= {job_project}
    repos = registry_data(store).of_projects(pids)
    return paginate(ctx, repos, lambda r: repository_json(ctx, r))


async def get_repository(ctx: Ctx) -> Any:
    try:
        rid = int(ctx.path("id"))
    except ValueError:
        raise SandboxError.message(404, "404 Not found") from None
    repo = registry_data(ctx.store).repositories.get(rid)
    if repo is None:
        raise SandboxError.message(404, "404 Not found")
    project = ctx.store.projects[repo.project_id]
    job_project = _job_project(ctx)
    if not ctx.store.can_read_project(ctx.user, project) or job_project not in (None, project.id):
        raise SandboxError.forbidden()
    return repository_json(ctx, repo, single=True)


async def list_tags(ctx: Ctx) -> Any:
    project = _project(ctx)
    repo = _repository(ctx, project)
    return paginate(ctx, sorted_tags(repo), lambda t: tag_json(ctx, repo, t))


async def get_tag(ctx: Ctx) -> Any:
    project = _project(ctx)
    repo = _repository(ctx, project)
    return tag_detail_json(ctx, repo, _tag(repo, ctx.path("tag_name")))


# --- deleting -------------------------------------------------------------------------------------------

async def delete_tag(ctx: Ctx) -> Any:
    project = _project(ctx)
    repo = _repository(ctx, project)
    _require_developer(ctx, project)
    tag = _tag(repo, ctx.path("tag_name"))
    del repo.tags[tag.name]  # the manifest's blobs stay until garbage collection
    ctx.store.touch()  # the project's registry size (its statistics) changes at once, as GitLab's usage does
    return Response(status_code=200)


async def delete_repository(ctx: Ctx) -> Any:
    project = _project(ctx)
    repo = _repository(ctx, project)
    _require_developer(ctx, project)
    key = ("registry_repository_delete", repo.id)
    if repo.status != "delete_scheduled":
        repo.status = "delete_scheduled"
        data = registry_data(ctx.store)
        store = ctx.store

        def gone() -> None:
            data.repositories.pop(repo.id, None)
            store.touch()

        store.scheduler.schedule(key, gone)
    return Response(status_code=202)


def _bulk_params(ctx: Ctx) -> CleanupRules:
    """The bulk delete parameters, validated as Grape does (every problem, in declaration order)."""
    p = ctx.params
    problems: list[str] = []
    patterns: dict[str, str | None] = {}
    for name in ("name_regex_delete", "name_regex", "name_regex_keep"):
        try:
            patterns[name] = p.str(name)
        except SandboxError:
            problems.append(f"{name} is invalid")
            continue
        value = patterns[name]
        if value is not None and (message := validate_pattern(value)) is not None:
            detail = message.removeprefix("invalid RE2 regular expression: ")
            problems.append(f"{name} is an invalid regexp: {detail}")
        if name == "name_regex" and "name_regex_delete" not in p and "name_regex" not in p:
            problems.append("name_regex, name_regex_delete are missing, at least one parameter must be "
                            "provided")
    keep_n: int | None = None
    try:
        keep_n = p.int("keep_n")
    except SandboxError:
        problems.append("keep_n is invalid")
    try:
        older_than = p.str("older_than")
    except SandboxError:
        problems.append("older_than is invalid")
    if problems:
        raise SandboxError(400, {"error": ", ".join(problems)})
    delete = patterns["name_regex_delete"]
    if delete is None:
        delete = patterns["name_regex"] or ""
    return CleanupRules(delete, patterns["name_regex_keep"], keep_n, older_than)


def planned_deletions(repo: Repository, rules: CleanupRules, ctx: Ctx) -> list[str]:
    """Names the background job will delete: the domain planner at the time of the request."""
    infos = [tag_info(t) for t in repo.tags.values()]
    try:
        plan = CleanupPlanner(infos).plan(rules, ctx.store.now())
    except RulesError:
        return []  # GitLab's job fails on what it cannot parse (say, older_than): nothing is deleted
    return [tag.name for tag in plan.to_delete()]


async def bulk_delete_tags(ctx: Ctx) -> Any:
    project = _project(ctx)
    rules = _bulk_params(ctx)
    repo = _repository(ctx, project)
    _require_developer(ctx, project)
    now = ctx.store.clock.time()
    if now < repo.lease_until:
        raise SandboxError.message(400, LEASE_MESSAGE)
    repo.lease_until = now + LEASE_SECONDS
    names = planned_deletions(repo, rules, ctx)

    store = ctx.store

    def complete() -> None:
        for name in names:
            repo.tags.pop(name, None)
        store.touch()

    ctx.store.scheduler.schedule(("registry_bulk_delete", repo.id), complete)
    return Response(status_code=202)


_REPO = "/projects/{id}/registry/repositories/{repository_id}"

routes: list[Route] = [
    Route("/projects/{id}/registry/repositories", endpoint(project_repositories), methods=["GET"]),
    Route("/groups/{id}/registry/repositories", endpoint(group_repositories), methods=["GET"]),
    Route("/registry/repositories/{id}", endpoint(get_repository), methods=["GET"]),
    Route(_REPO, endpoint(delete_repository), methods=["DELETE"]),
    Route(_REPO + "/tags", endpoint(list_tags), methods=["GET"]),
    Route(_REPO + "/tags", endpoint(bulk_delete_tags), methods=["DELETE"]),
    Route(_REPO + "/tags/{tag_name}", endpoint(get_tag), methods=["GET"]),
    Route(_REPO + "/tags/{tag_name}", endpoint(delete_tag), methods=["DELETE"]),
]
