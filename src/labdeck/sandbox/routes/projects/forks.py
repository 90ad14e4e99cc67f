"""Project forks (GitLab's API docs, "Project forks"), as GitLab's `lib/api/projects.rb` behaves:

- `POST /projects/:id/fork`: into the caller's personal namespace unless `namespace_id`, `namespace_path`
  or the deprecated `namespace` (id or path) names another; `name`, `path`, `description`, `visibility`
  (no more visible than the source), `branches` (empty: all), `mr_default_target_self`. 201 with the new
  project, whose `import_status` goes `scheduled`, then `started`, then `finished` through the scheduler
  (one `async_delay` each). An unknown namespace answers `404 Namespace Not Found`, one the caller cannot
  create projects in `404 Target Namespace Not Found`, a taken name or path 409 with the field errors.
- `GET /projects/:id/forks`: the direct forks the caller can see, with the `/projects` filters and
  `order_by`, `sort`, `updated_after`/`updated_before`, `simple`, `statistics`, `with_custom_attributes`.
- `POST /projects/:id/fork/:forked_from_id` (201, 409 `Project already forked`) and
  `DELETE /projects/:id/fork` (204; 304 when not a fork): administrators or the project's owners.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, datetime_param, endpoint, json_response, paginate
from labdeck.sandbox.routes.projects.projects import find_project, owned_projects, visible_projects
from labdeck.sandbox.seed.git_history import ProjectRepository, project_repository, repo_data
from labdeck.sandbox.shapes import project_json, project_simple, project_statistics
from labdeck.sandbox.store import VISIBILITY_RANK, Project, Store, User

AREA = "forks"
DEVELOPER, REPORTER = 30, 20
ACCESS_LEVELS = ("5", "10", "15", "20", "30", "40", "50")
_ORDER = {
    "id": lambda p: p.id, "name": lambda p: (p.name.lower(), p.id), "path": lambda p: (p.path, p.id),
    "created_at": lambda p: (p.created_at, p.id), "updated_at": lambda p: (p.updated_at, p.id),
    "star_count": lambda p: (p.star_count, p.id), "last_activity_at": lambda p: (p.last_activity_at, p.id),
}


@dataclass
class ForkData:
    mr_default_target_self: dict[int, bool] = field(default_factory=dict)  # fork id -> setting


def fork_data(store: Store) -> ForkData:
    return store.area(AREA, ForkData)


def seed(store: Store, ctx: Any) -> None:
    """Beyond the tiny scale, one finished fork: `alice/labdeck` from `opensource/labdeck` (the tiny scale
    stays as the core seed describes it, which other areas' tests count on)."""
    fork_data(store)
    source, alice = store.project_by_path("opensource/labdeck"), store.user_by_username("alice")
    if source is None or alice is None or ctx.scale == "tiny":
        return
    fork = _new_project(store, source, alice, ("user", alice.namespace_id, alice.username, alice.name),
                        source.name, source.path, source.visibility)
    fork.import_status = "finished"
    source.forks_count += 1


def fork_json(ctx: Ctx, project: Project) -> dict[str, Any]:
    body = project_json(ctx.store, project, ctx.base, admin=ctx.is_admin)
    if project.forked_from_id is not None:
        body["mr_default_target_self"] = fork_data(ctx.store).mr_default_target_self.get(project.id, False)
    return body


# --- forking --------------------------------------------------------------------------------------------

Target = tuple[str, int, str, str]  # kind, namespace id, full path, full name


def _target(ctx: Ctx, user: User) -> Target:
    p, store = ctx.params, ctx.store
    raw: Any = None
    for name in ("namespace_id", "namespace_path", "namespace"):
        if name in p and p.data[name] != "":
            raw = p.int(name) if name == "namespace_id" else p.str(name)
            break
    if raw is None:
        return ("user", user.namespace_id, user.username, user.name)
    text = str(raw)
    number = parse_digits(text)
    group = store.groups.get(number) if number is not None else store.group_by_path(text)
    owner = store.user_by_namespace(number) if number is not None else store.user_by_username(text)
    if group is not None and store.can_read_group(user, group):
        if not user.is_admin and store.group_levels(user.id).get(group.id, 0) < DEVELOPER:
            raise SandboxError.not_found("Target Namespace")
        return ("group", group.id, group.full_path, group.full_name)
    if owner is not None:
        if owner.id != user.id and not user.is_admin:
            raise SandboxError.not_found("Target Namespace")
        return ("user", owner.namespace_id, owner.username, owner.name)
    raise SandboxError.not_found("Namespace")


def _new_project(store: Store, source: Project, user: User, target: Target, name: str, path: str,
                 visibility: str, description: str | None = None) -> Project:
    kind, ns_id, ns_path, ns_name = target
    now = store.now()
    project = Project(id=store.next_id("project"), name=name, path=path, namespace_id=ns_id,
                      namespace_kind=kind,  # type: ignore[arg-type]
                      path_with_namespace=f"{ns_path}/{path}", name_with_namespace=f"{ns_name} / {name}",
                      visibility=visibility, creator_id=user.id,  # type: ignore[arg-type]
                      description=source.description if description is None else description,
                      created_at=now, last_activity_at=now, updated_at=now,
                      default_branch=source.default_branch, topics=list(source.topics),
                      import_status="scheduled", forked_from_id=source.id)
    store.projects[project.id] = project
    repo_data(store).repositories[project.id] = project_repository(store, source).copy()
    store.touch()
    return project


def _conflicts(store: Store, target: Target, name: str, path: str) -> dict[str, list[str]]:
    kind, ns_id = target[0], target[1]
    siblings = [store.projects[pid] for pid in store.projects_by_namespace().get((kind, ns_id), [])]
    errors: dict[str, list[str]] = {}
    if any(p.name.lower() == name.lower() for p in siblings):
        errors["name"] = ["has already been taken"]
    if any(p.path.lower() == path.lower() for p in siblings):
        errors["path"] = ["has already been taken"]
    return errors


def _schedule_import(store: Store, project: Project, source_repo: ProjectRepository, branches: str) -> None:
    key = ("fork", project.id)

    def finish() -> None:
        repo_data(store).repositories[project.id] = source_repo.copy(branches)
        project.import_status = "finished"
        source = store.projects.get(project.forked_from_id or 0)
        if source is not None:
            source.forks_count += 1
        store.touch()

    finish_at = store.clock.time() + 2 * store.scheduler.delay  # one delay to start, one more to finish

    def start() -> None:
        project.import_status = "started"
        store.touch()
        store.scheduler.schedule(key, finish, delay=max(0.0, finish_at - store.clock.time()))

    store.scheduler.schedule(key, start)


async def fork_project(ctx: Ctx) -> Any:
    user = ctx.require_user()
    source = find_project(ctx)
    p = ctx.params
    target = _target(ctx, user)
    name = (p.str("name") or source.name).strip()
    path = (p.str("path") or (source.path if not p.str("name") else name.lower().replace(" ", "-"))).strip()
    wanted = p.choice("visibility", ("private", "internal", "public"))
    visibility = min(source.visibility, wanted or source.visibility, key=VISIBILITY_RANK.__getitem__)
    if target[0] == "group":
        visibility = min(visibility, ctx.store.groups[target[1]].visibility, key=VISIBILITY_RANK.__getitem__)
    errors = _conflicts(ctx.store, target, name, path)
    if wanted and VISIBILITY_RANK[wanted] > VISIBILITY_RANK[source.visibility]:
        errors["visibility_level"] = [f"{wanted} is not allowed since the fork source project has lower "
                                      "visibility."]
    if errors:
        raise SandboxError.message(409, errors)
    project = _new_project(ctx.store, source, user, target, name, path, visibility, p.str("description"))
    fork_data(ctx.store).mr_default_target_self[project.id] = bool(p.bool("mr_default_target_self", False))
    _schedule_import(ctx.store, project, project_repository(ctx.store, source), p.str("branches") or "")
    return json_response(fork_json(ctx, project), 201)


# --- listing --------------------------------------------------------------------------------------------

async def list_forks(ctx: Ctx) -> Any:
    source = find_project(ctx)
    p = ctx.params
    p.choice("min_access_level", ACCESS_LEVELS)
    order_by = p.choice("order_by", _ORDER, "created_at") or "created_at"
    sort = p.choice("sort", ("asc", "desc"), "desc")
    after, before = datetime_param(ctx, "updated_after"), datetime_param(ctx, "updated_before")
    rows = [pr for pr in visible_projects(ctx) if pr.forked_from_id == source.id
            and (after is None or pr.updated_at >= after) and (before is None or pr.updated_at <= before)]
    rows.sort(key=_ORDER[order_by], reverse=sort == "desc")
    user = ctx.user
    levels = ctx.store.project_levels(user.id) if user else {}
    simple = bool(p.bool("simple")) and user is not None
    statistics, custom = bool(p.bool("statistics")), bool(p.bool("with_custom_attributes")) and ctx.is_admin

    def shape(project: Project) -> dict[str, Any]:
        if simple:
            return project_simple(ctx.store, project, ctx.base)
        body = fork_json(ctx, project)
        if statistics and (ctx.is_admin or levels.get(project.id, 0) >= REPORTER):
            body["statistics"] = project_statistics(ctx.store, project)
        if custom:
            body["custom_attributes"] = [{"key": k, "value": v} for k, v in project.custom_attributes.items()]
        return body

    return paginate(ctx, rows, shape)


# --- fork relationships ---------------------------------------------------------------------------------

def _owner_project(ctx: Ctx) -> Project:
    project = find_project(ctx)
    user = ctx.require_user()
    if not user.is_admin and project.id not in owned_projects(ctx.store, user):
        raise SandboxError.forbidden()
    return project


async def create_relationship(ctx: Ctx) -> Any:
    project = _owner_project(ctx)
    source = find_project(ctx, ctx.path("forked_from_id"))
    if project.forked_from_id is not None:
        raise SandboxError.message(409, "Project already forked")
    if source.id == project.id:
        raise SandboxError.message(409, "Project cannot be forked from itself")
    project.forked_from_id = source.id
    source.forks_count += 1
    ctx.store.touch()
    return json_response(fork_json(ctx, project), 201)


async def delete_relationship(ctx: Ctx) -> Any:
    project = _owner_project(ctx)
    wanted = ctx.request.path_params.get("forked_from_id")
    if project.forked_from_id is None or (wanted is not None and str(project.forked_from_id) != wanted):
        return Response(status_code=304)
    source = ctx.store.projects.get(project.forked_from_id)
    if source is not None:
        source.forks_count = max(source.forks_count - 1, 0)
    project.forked_from_id = None
    ctx.store.touch()
    return Response(status_code=204)


routes: list[Route] = [
    Route("/projects/{id}/fork", endpoint(fork_project), methods=["POST"]),
    Route("/projects/{id}/fork", endpoint(delete_relationship), methods=["DELETE"]),
    Route("/projects/{id}/forks", endpoint(list_forks), methods=["GET"]),
    Route("/projects/{id}/fork/{forked_from_id}", endpoint(create_relationship), methods=["POST"]),
    Route("/projects/{id}/fork/{forked_from_id}", endpoint(delete_relationship), methods=["DELETE"]),
]
