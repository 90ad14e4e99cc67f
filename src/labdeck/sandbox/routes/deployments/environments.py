"""Environment routes (protected environments are `protected.py`'s).

- `GET /projects/:id/environments` (real GitLab's `doc/api/environments.md`): `name` (exact), `search`
  (at least 3 characters; exclusive with `name`), `states` (`available`, `stopping`, `stopped`);
  `GET /projects/:id/environments/:environment_id` adds `project` and `last_deployment` (the newest
  successful one). A private project's environments and deployments need a Reporter (403 below).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, paginate
from labdeck.sandbox.routes.deployments.deployments import deployment_json, read_environments
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.deployments import Environment, deployments_data
from labdeck.sandbox.shapes import project_simple

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


routes: list[Route] = [
    Route("/projects/{id}/environments", endpoint(list_environments), methods=["GET"]),
    Route("/projects/{id}/environments/{environment_id}", endpoint(get_environment), methods=["GET"]),
]
