"""Environment and protected environment routes.

- `GET /projects/:id/environments` (real GitLab's `doc/api/environments.md`): `name` (exact), `search`
  (at least 3 characters; exclusive with `name`), `states` (`available`, `stopping`, `stopped`);
  `GET /projects/:id/environments/:environment_id` adds `project` and `last_deployment` (the newest
  successful one). A private project's environments and deployments need a Reporter (403 below).
- Protected environments (GitLab's API docs), Maintainer (40) or administrator: list, read (`name` may
  hold `/`, URL-encoded), create with `name` and `deploy_access_levels` (each element exactly one of
  `user_id`, `group_id`, `access_level`, levels 30/40/60, checked by `domain.deployments`; a user must have
  access to the project, a group must have the project shared with it), delete (204).
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.deployments import DeployRule, level_description, rule_problems
from labdeck.domain.digits import integer_value, parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, json_response, paginate
from labdeck.sandbox.routes.deployments.deployments import deployment_json, read_environments
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.seed.deployments import (
    DeploymentsData,
    Environment,
    ProtectedEnvironment,
    deployments_data,
)
from labdeck.sandbox.seed.sharing import groups_of
from labdeck.sandbox.shapes import project_simple
from labdeck.sandbox.store import Project

MAINTAINER = 40
ENV_STATES = ("available", "stopping", "stopped")
SEARCH_MINIMUM = 3


# --- environments ---------------------------------------------------------------------------------------

def environment_json(ctx: Ctx, env: Environment) -> dict[str, Any]:
    project = ctx.store.projects[env.project_id]
    return {
        "id": env.id, "name": env.name, "slug": env.slug, "description": None,
        "external_url": env.external_url, "state": env.state, "tier": env.tier,
        "created_at": iso(env.created_at), "updated_at": iso(env.updated_at), "auto_stop_at": None,
        "auto_stop_setting": "always", "kubernetes_namespace": None, "flux_resource_path": None,
        "enable_advanced_logs_querying": False,
        "logs_api_path": f"/{project.path_with_namespace}/-/logs/k8s.json?environment_name={env.name}",
    }


async def list_environments(ctx: Ctx) -> Any:
    project = read_environments(ctx)
    p = ctx.params
    name, search = p.str("name"), p.str("search")
    if name is not None and search is not None:
        raise SandboxError(400, {"error": "name, search are mutually exclusive"})
    if search is not None and len(search) < SEARCH_MINIMUM:
        raise SandboxError.message(400, "400 Bad request - Search query must be at least 3 characters")
    states = p.str("states")
    if states is not None and states not in ENV_STATES:
        raise SandboxError.message(400, "400 Bad request - Requested states are invalid")
    rows = deployments_data(ctx.store).environments_of(project.id)
    if name is not None:
        rows = [e for e in rows if e.name == name]
    if search:
        rows = [e for e in rows if search.lower() in e.name.lower()]
    if states:
        rows = [e for e in rows if e.state == states]
    return paginate(ctx, rows, lambda e: environment_json(ctx, e))


async def get_environment(ctx: Ctx) -> Any:
    project = find_project(ctx)
    data = deployments_data(ctx.store)
    number = parse_digits(ctx.path("environment_id"))
    env = data.environments.get(number) if number is not None else None
    if env is None or env.project_id != project.id:
        raise SandboxError.not_found("Environment")
    successes = [d for d in data.deployments_of(project.id)
                 if d.environment_id == env.id and d.status == "success"]
    last = max(successes, key=lambda d: (d.created_at, d.id), default=None)
    return {**environment_json(ctx, env), "project": project_simple(ctx.store, project, ctx.base),
            "last_deployment": deployment_json(ctx, last) if last is not None else None}


# --- protected environments -----------------------------------------------------------------------------

def rule_json(ctx: Ctx, rule: DeployRule) -> dict[str, Any]:
    if rule.user_id is not None:
        user = ctx.store.users.get(rule.user_id)
        description = user.name if user else str(rule.user_id)
    elif rule.group_id is not None:
        group = ctx.store.groups.get(rule.group_id)
        description = group.name if group else str(rule.group_id)
    else:
        description = level_description(rule.access_level)
    return {"access_level": rule.access_level, "access_level_description": description,
            "user_id": rule.user_id, "group_id": rule.group_id}


def protected_json(ctx: Ctx, protected: ProtectedEnvironment) -> dict[str, Any]:
    return {"name": protected.name, "deploy_access_levels": [rule_json(ctx, r) for r in protected.rules]}


def _protected(ctx: Ctx, data: DeploymentsData, project: Project) -> ProtectedEnvironment:
    protected = data.protected.get((project.id, ctx.path("name")))
    if protected is None:
        raise SandboxError.message(404, "404 Not found")
    return protected


def _maintainer_project(ctx: Ctx) -> Project:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    return project


async def list_protected(ctx: Ctx) -> Any:
    project = _maintainer_project(ctx)
    data = deployments_data(ctx.store)
    rows = sorted((pe for (pid, _), pe in data.protected.items() if pid == project.id),
                  key=lambda pe: pe.name)
    return paginate(ctx, rows, lambda pe: protected_json(ctx, pe))


async def get_protected(ctx: Ctx) -> Any:
    project = _maintainer_project(ctx)
    return protected_json(ctx, _protected(ctx, deployments_data(ctx.store), project))


def _parse_rules(ctx: Ctx) -> list[DeployRule]:
    raw = ctx.params.get("deploy_access_levels")
    if isinstance(raw, dict):  # form-encoded `deploy_access_levels[0][user_id]=1`
        raw = [raw[k] for k in sorted(raw, key=lambda k: parse_digits(str(k)) or 0)]
    if not isinstance(raw, list) or not raw or not all(isinstance(e, dict) for e in raw):
        raise SandboxError.invalid("deploy_access_levels")
    problems = [problem for index, element in enumerate(raw) for problem in rule_problems(element, index)]
    if problems:
        raise SandboxError(400, {"error": ", ".join(problems)})
    rules = []
    for element in raw:
        key = next(k for k in ("access_level", "user_id", "group_id") if element.get(k) not in (None, ""))
        rules.append(DeployRule(**{key: integer_value(element[key])}))
    return rules


def _check_members(ctx: Ctx, project: Project, rules: list[DeployRule]) -> None:
    store = ctx.store
    errors: dict[str, list[str]] = {}
    shared = groups_of(store, project.id)  # the one record of project shares
    for rule in rules:
        if rule.user_id is not None:
            user = store.users.get(rule.user_id)
            if user is None or not (user.is_admin or store.project_levels(user.id).get(project.id, 0) > 0):
                errors.setdefault("deploy_access_levels.user", []).append("must have access to the project")
        if rule.group_id is not None and rule.group_id not in shared:
            errors.setdefault("deploy_access_levels.group", []).append(
                "must have the project shared with it")
    if errors:
        raise SandboxError.validation(errors)


async def create_protected(ctx: Ctx) -> Any:
    project = find_project(ctx)
    p = ctx.params
    missing = [n for n in ("name", "deploy_access_levels") if p.data.get(n) in (None, "", [])]
    if missing:
        raise SandboxError.missing(*missing)
    name = p.str("name") or ""
    rules = _parse_rules(ctx)
    require_level(ctx, project, MAINTAINER)
    data = deployments_data(ctx.store)
    if (project.id, name) in data.protected:
        raise SandboxError.validation({"name": ["has already been taken"]})
    _check_members(ctx, project, rules)
    protected = data.protected[(project.id, name)] = ProtectedEnvironment(project.id, name, rules)
    ctx.store.touch()
    return json_response(protected_json(ctx, protected), 201)


async def delete_protected(ctx: Ctx) -> Any:
    project = _maintainer_project(ctx)
    data = deployments_data(ctx.store)
    protected = _protected(ctx, data, project)
    del data.protected[(project.id, protected.name)]
    ctx.store.touch()
    return Response(status_code=204)


routes: list[Route] = [
    Route("/projects/{id}/environments", endpoint(list_environments), methods=["GET"]),
    Route("/projects/{id}/environments/{environment_id}", endpoint(get_environment), methods=["GET"]),
    Route("/projects/{id}/protected_environments", endpoint(list_protected), methods=["GET"]),
    Route("/projects/{id}/protected_environments", endpoint(create_protected), methods=["POST"]),
    Route("/projects/{id}/protected_environments/{name}", endpoint(get_protected), methods=["GET"]),
    Route("/projects/{id}/protected_environments/{name}", endpoint(delete_protected), methods=["DELETE"]),
]
