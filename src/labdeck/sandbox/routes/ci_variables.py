"""Project, group and instance CI/CD variables (GitLab's API docs; `lib/api/ci/variables.rb` for projects):
full CRUD, the key rules, the instance value limit, masking requirements (looser when `raw`),
`variable_type`, `protected`, `masked`, `raw`, `description` (at most 255 characters), `environment_scope`
(`*` by default; projects and groups, Premium for groups), `filter[environment_scope]` on GET, PUT and
DELETE (409 when several scopes share the key), hidden project and group variables as GitLab 17.4+ has
them (`masked_and_hidden` on create only; `hidden: true` and `value: null` on
every read; their masking can never change: 400 `{"message": {"base": [...]}}`), and the configurable
maximum number of instance variables (`GET/PUT /application/plan_limits`, field
`ci_instance_level_variables`, as GitLab's plan limits API). The rules come from `domain/ci_variables.py`.

Records: `store.areas["ci_variables"]` is a `VariablesState`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.ci_variables import (
    DEFAULT_INSTANCE_LIMIT,
    DEFAULT_SCOPE,
    VARIABLE_TYPES,
    hidden_update_error,
    limit_error,
    variable_errors,
)
from labdeck.domain.features import GROUP_VARIABLE_ENVIRONMENT_SCOPE, Feature
from labdeck.sandbox.editions import has_feature
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, Handler, endpoint, error, json_response, paginate
from labdeck.sandbox.routes.groups.groups import find_group, require_level
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.routes.projects.projects import require_level as require_project_level
from labdeck.sandbox.store import Store

AREA = "ci_variables"
MANAGE_LEVEL = 40
AMBIGUOUS = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'"


@dataclass
class Variable:
    key: str
    value: str
    variable_type: str = "env_var"
    protected: bool = False
    masked: bool = False
    environment_scope: str = DEFAULT_SCOPE
    description: str | None = None
    raw: bool = False
    hidden: bool = False


@dataclass
class VariablesState:
    groups: dict[int, list[Variable]] = field(default_factory=dict)
    projects: dict[int, list[Variable]] = field(default_factory=dict)
    instance: list[Variable] = field(default_factory=list)
    instance_limit: int = DEFAULT_INSTANCE_LIMIT


def state(store: Store) -> VariablesState:
    return store.area(AREA, VariablesState)


def seed(store: Store, ctx: Any) -> None:
    data = state(store)
    acme = store.group_by_path("acme")
    platform = store.group_by_path("acme/platform")
    if acme is not None:
        data.groups[acme.id] = [
            Variable("DEPLOY_TOKEN", "s3cr3t-deploy-token-42", protected=True, masked=True),
            Variable("REGISTRY_MIRROR", "https://mirror.acme.example"),
            Variable("KUBECONFIG", "apiVersion: v1\nkind: Config\n", variable_type="file",
                     environment_scope="production"),
        ]
    if platform is not None:
        data.groups[platform.id] = [
            Variable("GATEWAY_REPLICAS", "3", environment_scope="staging"),
            Variable("SIGNING_KEY", "k3y-that-nobody-sees-again", protected=True, masked=True, hidden=True,
                     description="Release signing key (masked and hidden: never shown again)"),
            Variable("DOLLAR_TEMPLATE", "echo $CI_COMMIT_SHA verbatim", raw=True,
                     description="Raw: $CI_COMMIT_SHA is passed as typed, not expanded")]
    for group in store.groups.values():
        if group.parent_id is None and group.id not in data.groups and group.full_path != "opensource":
            data.groups[group.id] = [
                Variable("DEPLOY_ENV", ctx.rng.choice(("staging", "production", "review"))),
                Variable("API_TOKEN", f"tok-{ctx.rng.getrandbits(48):012x}", protected=True, masked=True)]
    seed_projects(store, data)
    data.instance = [Variable("HTTP_PROXY", "http://proxy.internal:3128"),
                     Variable("SONAR_TOKEN", "sonar-token-0123456789", masked=True, protected=True)]


def seed_projects(store: Store, data: VariablesState) -> None:
    """Project variables of the demo's gateway: scoped pairs under one key (so `filter[environment_scope]`
    means something), a masked and a masked-and-hidden secret, a file and a raw one. No randomness: the
    seeded history of everything else stays as it was."""
    gateway = store.project_by_path("acme/platform/api-gateway")
    if gateway is None:
        return
    data.projects[gateway.id] = [
        Variable("DATABASE_URL", "postgres://gateway@db.staging.internal/gateway",
                 environment_scope="staging"),
        Variable("DATABASE_URL", "postgres://gateway@db.prod.internal/gateway",
                 environment_scope="production", protected=True),
        Variable("DB_PASSWORD", "staging-db-pa55word", masked=True, environment_scope="staging"),
        Variable("PROD_DB_PASSWORD", "pr0d-db-never-shown-again", protected=True, masked=True, hidden=True,
                 environment_scope="production", description="Production database password (hidden)"),
        Variable("GATEWAY_CONFIG", "listen: 0.0.0.0:8080\nupstreams: 3\n", variable_type="file"),
        Variable("LOG_FORMAT", "json with $CI_JOB_ID as typed", raw=True,
                 description="Raw: $CI_JOB_ID stays as typed"),
    ]


def variable_json(variable: Variable, *, group: bool) -> dict[str, Any]:
    """GitLab's `Entities::Ci::Variable`: `hidden` and `environment_scope` only where the kind has them
    (project and group variables, `group=True`; not instance variables), and a hidden variable's value is
    null (`Ci::VariableValue`)."""
    body: dict[str, Any] = {
        "variable_type": variable.variable_type, "key": variable.key,
        "value": None if variable.hidden else variable.value,
        "protected": variable.protected, "masked": variable.masked, "raw": variable.raw,
        "description": variable.description,
    }
    if group:
        body["hidden"] = variable.hidden
        body["environment_scope"] = variable.environment_scope
    return body


def _apply(ctx: Ctx, variable: Variable, *, group: bool, creating: bool,
           scope_feature: Feature | None = GROUP_VARIABLE_ENVIRONMENT_SCOPE) -> None:
    """Fields of the request onto `variable`, then validate the result (400 with GitLab's shapes).
    `group`: a project or group variable (hiding, environment scope). `masked_and_hidden` is read on create
    only (GitLab's update does not declare it: ignored there). `environment_scope` is read when the
    instance has `scope_feature` (None: always, as project variables on every edition)."""
    p = ctx.params
    masked_before = variable.masked
    if "value" in p:
        variable.value = p.str("value") or ""
    variable.variable_type = p.choice("variable_type", VARIABLE_TYPES, variable.variable_type) or "env_var"
    variable.protected = bool(p.bool("protected", variable.protected))
    variable.masked = bool(p.bool("masked", variable.masked))
    variable.raw = bool(p.bool("raw", variable.raw))
    if creating and group and p.bool("masked_and_hidden", False):
        variable.masked = variable.hidden = True
    if "description" in p:
        variable.description = p.str("description")
    if group and p.str("environment_scope") and (scope_feature is None or has_feature(ctx.options,
                                                                                       scope_feature)):
        variable.environment_scope = p.str("environment_scope") or DEFAULT_SCOPE
    if not creating:
        problem = hidden_update_error(variable.hidden, masked_before, variable.masked)
        if problem is not None:
            raise SandboxError.validation({"base": [problem]})
    errors = variable_errors(variable.key, variable.value, masked=variable.masked, instance=not group,
                             raw=variable.raw, description=variable.description, hidden=variable.hidden)
    if errors:
        raise SandboxError.validation(errors)


def _taken(key: str) -> SandboxError:
    return SandboxError.validation({"key": [f"({key}) has already been taken"]})


# --- project and group variables: one set of handlers, the owner says whose -------------------------------

@dataclass(frozen=True)
class Owner:
    """Whose variables a route serves: `not_found` names GitLab's 404 (`not_found!('Variable')` for
    projects, `'GroupVariable'` for groups); `scope_feature` gates `environment_scope` (None: always);
    `value_on_update`: PUT requires `value` (groups, as the sandbox had it; GitLab's project PUT does not)."""

    kind: str
    not_found: str
    scope_feature: Feature | None
    value_on_update: bool


GROUP = Owner("groups", "GroupVariable", GROUP_VARIABLE_ENVIRONMENT_SCOPE, True)
PROJECT = Owner("projects", "Variable", None, False)


def _owned(ctx: Ctx, owner: Owner) -> list[Variable]:
    """The owner's variables, for a caller with Maintainer (40) or more. Projects as GitLab checks them:
    `authenticate!` (401) before the project is looked up (404), then `:admin_build` (403)."""
    data = state(ctx.store)
    if owner is PROJECT:
        ctx.require_user()
        project = find_project(ctx)
        require_project_level(ctx, project, MANAGE_LEVEL)
        return data.projects.setdefault(project.id, [])
    group = find_group(ctx)
    require_level(ctx, group, MANAGE_LEVEL)
    return data.groups.setdefault(group.id, [])


def _find_owned(ctx: Ctx, owner: Owner, variables: list[Variable]) -> Variable:
    key = ctx.path("key")
    scope = ctx.params.dict("filter").get("environment_scope")
    found = [v for v in variables if v.key == key and (scope is None or v.environment_scope == scope)]
    if not found:
        raise SandboxError.not_found(owner.not_found)
    if len(found) > 1:
        raise error(409, AMBIGUOUS)
    return found[0]


def _list(owner: Owner) -> Handler:
    async def list_variables(ctx: Ctx) -> Any:
        return paginate(ctx, _owned(ctx, owner), lambda v: variable_json(v, group=True))
    return list_variables


def _get(owner: Owner) -> Handler:
    async def get_variable(ctx: Ctx) -> Any:
        return variable_json(_find_owned(ctx, owner, _owned(ctx, owner)), group=True)
    return get_variable


def _create(owner: Owner) -> Handler:
    async def create_variable(ctx: Ctx) -> Any:
        variables = _owned(ctx, owner)
        ctx.params.require("key", "value")
        variable = Variable(ctx.params.str("key") or "", "")
        _apply(ctx, variable, group=True, creating=True, scope_feature=owner.scope_feature)
        if any(v.key == variable.key and v.environment_scope == variable.environment_scope
               for v in variables):
            raise _taken(variable.key)
        variables.append(variable)
        ctx.store.touch()
        return json_response(variable_json(variable, group=True), 201)
    return create_variable


def _update(owner: Owner) -> Handler:
    async def update_variable(ctx: Ctx) -> Any:
        variables = _owned(ctx, owner)
        variable = _find_owned(ctx, owner, variables)
        if owner.value_on_update:
            ctx.params.require("value")
        updated = Variable(**vars(variable))
        _apply(ctx, updated, group=True, creating=False, scope_feature=owner.scope_feature)
        if updated.environment_scope != variable.environment_scope and any(
                v.key == updated.key and v.environment_scope == updated.environment_scope for v in variables):
            raise _taken(updated.key)
        variables[variables.index(variable)] = updated
        ctx.store.touch()
        return variable_json(updated, group=True)
    return update_variable


def _delete(owner: Owner) -> Handler:
    async def delete_variable(ctx: Ctx) -> Any:
        variables = _owned(ctx, owner)
        variables.remove(_find_owned(ctx, owner, variables))
        ctx.store.touch()
        return Response(status_code=204)
    return delete_variable


def owned_routes(owner: Owner) -> list[Route]:
    base = f"/{owner.kind}/{{id}}/variables"
    return [Route(base, endpoint(_list(owner)), methods=["GET"]),
            Route(base, endpoint(_create(owner)), methods=["POST"]),
            Route(base + "/{key}", endpoint(_get(owner)), methods=["GET"]),
            Route(base + "/{key}", endpoint(_update(owner)), methods=["PUT"]),
            Route(base + "/{key}", endpoint(_delete(owner)), methods=["DELETE"])]


# --- instance variables ---------------------------------------------------------------------------------

def _find_instance_var(ctx: Ctx) -> Variable:
    ctx.require_admin()
    key = ctx.path("key")
    found = next((v for v in state(ctx.store).instance if v.key == key), None)
    if found is None:
        raise SandboxError.not_found("InstanceVariable")
    return found


async def list_instance_variables(ctx: Ctx) -> Any:
    ctx.require_admin()
    return paginate(ctx, state(ctx.store).instance, lambda v: variable_json(v, group=False))


async def get_instance_variable(ctx: Ctx) -> Any:
    return variable_json(_find_instance_var(ctx), group=False)


async def create_instance_variable(ctx: Ctx) -> Any:
    ctx.require_admin()
    data = state(ctx.store)
    ctx.params.require("key", "value")
    variable = Variable(ctx.params.str("key") or "", "")
    _apply(ctx, variable, group=False, creating=True)
    if any(v.key == variable.key for v in data.instance):
        raise _taken(variable.key)
    if len(data.instance) >= data.instance_limit:
        raise SandboxError.validation({"base": [limit_error(data.instance_limit)]})
    data.instance.append(variable)
    ctx.store.touch()
    return json_response(variable_json(variable, group=False), 201)


async def update_instance_variable(ctx: Ctx) -> Any:
    variable = _find_instance_var(ctx)
    ctx.params.require("value")
    updated = Variable(**vars(variable))
    _apply(ctx, updated, group=False, creating=False)
    instance = state(ctx.store).instance
    instance[instance.index(variable)] = updated
    ctx.store.touch()
    return variable_json(updated, group=False)


async def delete_instance_variable(ctx: Ctx) -> Any:
    variable = _find_instance_var(ctx)
    state(ctx.store).instance.remove(variable)
    ctx.store.touch()
    return Response(status_code=204)


def _limits(data: VariablesState) -> dict[str, Any]:
    return {"ci_instance_level_variables": data.instance_limit, "ci_pipeline_size": 0,
            "ci_active_jobs": 0, "ci_project_subscriptions": 2, "ci_pipeline_schedules": 10,
            "ci_needs_size_limit": 50, "ci_registered_group_runners": 1000,
            "ci_registered_project_runners": 1000, "conan_max_file_size": 3221225472,
            "enforcement_limit": 10000, "generic_packages_max_file_size": 5368709120,
            "helm_max_file_size": 5242880, "maven_max_file_size": 3221225472,
            "notification_limit": 10000, "npm_max_file_size": 524288000, "nuget_max_file_size": 524288000,
            "pypi_max_file_size": 3221225472, "terraform_module_max_file_size": 1073741824,
            "storage_size_limit": 15000}


async def get_plan_limits(ctx: Ctx) -> Any:
    ctx.require_admin()
    return _limits(state(ctx.store))


async def put_plan_limits(ctx: Ctx) -> Any:
    ctx.require_admin()
    data = state(ctx.store)
    limit = ctx.params.int("ci_instance_level_variables")
    if limit is not None:
        if limit < 0:
            raise SandboxError.invalid("ci_instance_level_variables")
        data.instance_limit = limit
        ctx.store.touch()
    return _limits(data)


routes: list[Route] = [
    *owned_routes(PROJECT),
    *owned_routes(GROUP),
    Route("/admin/ci/variables", endpoint(list_instance_variables), methods=["GET"]),
    Route("/admin/ci/variables", endpoint(create_instance_variable), methods=["POST"]),
    Route("/admin/ci/variables/{key}", endpoint(get_instance_variable), methods=["GET"]),
    Route("/admin/ci/variables/{key}", endpoint(update_instance_variable), methods=["PUT"]),
    Route("/admin/ci/variables/{key}", endpoint(delete_instance_variable), methods=["DELETE"]),
    Route("/application/plan_limits", endpoint(get_plan_limits), methods=["GET"]),
    Route("/application/plan_limits", endpoint(put_plan_limits), methods=["PUT"]),
]
