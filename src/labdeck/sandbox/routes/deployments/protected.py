"""Protected environment routes (Premium: GitLab's `ee/lib/api/protected_environments.rb`, API docs
`doc/api/protected_environments.md`), for a Maintainer (40) or an administrator (403 first):

- list and read (`name` may hold `/`, URL-encoded; 404 `404 Not found`): GitLab's `ProtectedEnvironment`
  entity. From 15.4 (the version that changes rules in place, feature `protected_environment_update`) each
  rule has its record's `id` and `group_inheritance_type`, and the protection its `required_approval_count`
  and `approval_rules` (with `required_approvals`), as the entity has them since;
- create with `name` and `deploy_access_levels` (each element exactly one of `user_id`, `group_id`,
  `access_level`, levels 30/40/60, checked by `domain.deployments`; a user must have access to the
  project, a group must have the project shared with it), and from 15.4 `approval_rules`;
- delete (204);
- change in place (15.4+): `protected_update.py`, which reads elements with `nested_entries`.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.deployments import ACCESS_LEVELS, DeployRule, level_description, rule_problems
from labdeck.domain.digits import integer_value, parse_digits
from labdeck.domain.features import PROTECTED_ENVIRONMENT_UPDATE
from labdeck.sandbox.editions import has_feature
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response, paginate
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.seed.deployments import (
    DeploymentsData,
    ProtectedEnvironment,
    StoredRule,
    deployments_data,
    stored,
)
from labdeck.sandbox.seed.sharing import groups_of
from labdeck.sandbox.store import Project

MAINTAINER = 40
INHERITANCE = (0, 1)  # ProtectedEnvironments::Authorizable::GROUP_INHERITANCE_TYPE
_INTEGERS = ("id", "user_id", "group_id", "group_inheritance_type", "access_level", "required_approvals")


def in_place(ctx: Ctx) -> bool:
    """Whether the version played changes rules in place (and its entity shows the rules' ids)."""
    return has_feature(ctx.options, PROTECTED_ENVIRONMENT_UPDATE)


def rule_json(ctx: Ctx, rule: StoredRule, *, approval: bool = False) -> dict[str, Any]:
    if rule.user_id is not None:
        user = ctx.store.users.get(rule.user_id)
        description = user.name if user else str(rule.user_id)
    elif rule.group_id is not None:
        group = ctx.store.groups.get(rule.group_id)
        description = group.name if group else str(rule.group_id)
    else:
        description = level_description(rule.access_level)
    shown = {"access_level": rule.access_level, "access_level_description": description,
             "user_id": rule.user_id, "group_id": rule.group_id}
    if not in_place(ctx):
        return shown
    if approval:
        shown["required_approvals"] = rule.required_approvals or 1
    return {"id": rule.id, **shown, "group_inheritance_type": rule.group_inheritance_type}


def protected_json(ctx: Ctx, protected: ProtectedEnvironment) -> dict[str, Any]:
    body: dict[str, Any] = {"name": protected.name,
                            "deploy_access_levels": [rule_json(ctx, r) for r in protected.rules]}
    if in_place(ctx):
        body["required_approval_count"] = protected.required_approval_count
        body["approval_rules"] = [rule_json(ctx, r, approval=True) for r in protected.approval_rules]
    return body


def find_protected(ctx: Ctx, data: DeploymentsData, project: Project) -> ProtectedEnvironment:
    protected = data.protected.get((project.id, ctx.path("name")))
    if protected is None:
        raise SandboxError.message(404, "404 Not found")
    return protected


def maintainer_project(ctx: Ctx) -> Project:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    return project


def qualified(ctx: Ctx, project: Project, entry: dict[str, Any]) -> bool:
    """Whether GitLab keeps a rule naming this user or group (`ProtectedEnvironments::BaseService
    #valid_attribute?`): a user with at least Developer access to the project, a group the project is
    shared with."""
    if entry.get("user_id") is not None:
        return ctx.store.project_levels(int(entry["user_id"])).get(project.id, 0) >= 30
    if entry.get("group_id") is not None:
        return int(entry["group_id"]) in groups_of(ctx.store, project.id)
    return True


def nested_entries(ctx: Ctx, key: str) -> list[dict[str, Any]]:
    """The elements of the array parameter `key` (JSON, or form-encoded `key[0][user_id]=1`), checked as
    Grape checks them (400): integers (`... is invalid`), levels and inheritance types among GitLab's values
    (`... does not have a valid value`), `_destroy` a boolean, and an approval rule that is not dropped
    naming at least one of its role, user and group."""
    raw = ctx.params.get(key)
    if isinstance(raw, dict):
        raw = [raw[k] for k in sorted(raw, key=lambda k: parse_digits(str(k)) or 0)]
    if not isinstance(raw, list) or not all(isinstance(e, dict) for e in raw):
        raise SandboxError.invalid(key)
    problems: list[str] = []
    entries = []
    for index, element in enumerate(raw):
        entry: dict[str, Any] = {}
        for name in _INTEGERS:
            value = element.get(name)
            if name not in element or value == "":
                continue
            number = integer_value(value)
            if value is not None and number is None:
                problems.append(f"{key}[{index}][{name}] is invalid")
            else:
                entry[name] = number
        if entry.get("access_level") is not None and entry["access_level"] not in ACCESS_LEVELS:
            problems.append(f"{key}[{index}][access_level] does not have a valid value")
        if entry.get("group_inheritance_type") not in (None, *INHERITANCE):
            problems.append(f"{key}[{index}][group_inheritance_type] does not have a valid value")
        if "_destroy" in element:
            flag = str(element["_destroy"]).strip().lower()
            if flag not in ("true", "false", "1", "0"):
                problems.append(f"{key}[{index}][_destroy] is invalid")
            entry["_destroy"] = flag in ("true", "1")
        if key == "approval_rules" and not entry.get("_destroy") \
                and all(entry.get(n) is None for n in ("access_level", "user_id", "group_id")):
            named = ", ".join(f"{key}[{index}][{n}]" for n in ("access_level", "user_id", "group_id"))
            problems.append(f"{named} are missing, at least one parameter must be provided")
        entries.append(entry)
    if problems:
        raise SandboxError(400, {"error": ", ".join(problems)})
    return entries


# --- routes ---------------------------------------------------------------------------------------------

async def list_protected(ctx: Ctx) -> Any:
    project = maintainer_project(ctx)
    data = deployments_data(ctx.store)
    rows = sorted((pe for (pid, _), pe in data.protected.items() if pid == project.id),
                  key=lambda pe: pe.name)
    return paginate(ctx, rows, lambda pe: protected_json(ctx, pe))


async def get_protected(ctx: Ctx) -> Any:
    project = maintainer_project(ctx)
    return protected_json(ctx, find_protected(ctx, deployments_data(ctx.store), project))


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


def _approval_rules(ctx: Ctx, project: Project) -> list[StoredRule]:
    """The `approval_rules` of a create (15.4+), unqualified users and groups left out as GitLab does."""
    if not in_place(ctx) or "approval_rules" not in ctx.params:
        return []
    made = []
    for entry in nested_entries(ctx, "approval_rules"):
        if entry.get("_destroy") or not qualified(ctx, project, entry):
            continue
        key = next(k for k in ("user_id", "group_id", "access_level") if entry.get(k) is not None)
        made.append(stored(ctx.store, DeployRule(**{key: entry[key]}), entry.get("required_approvals") or 1,
                           entry.get("group_inheritance_type") or 0))
    return made


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
    approvals = _approval_rules(ctx, project)
    protected = data.protected[(project.id, name)] = ProtectedEnvironment(
        project.id, name, [stored(ctx.store, rule) for rule in rules], approvals)
    ctx.store.touch()
    return json_response(protected_json(ctx, protected), 201)


async def delete_protected(ctx: Ctx) -> Any:
    project = maintainer_project(ctx)
    data = deployments_data(ctx.store)
    protected = find_protected(ctx, data, project)
    del data.protected[(project.id, protected.name)]
    ctx.store.touch()
    return Response(status_code=204)


routes: list[Route] = [
    Route("/projects/{id}/protected_environments", endpoint(list_protected), methods=["GET"]),
    Route("/projects/{id}/protected_environments", endpoint(create_protected), methods=["POST"]),
    Route("/projects/{id}/protected_environments/{name}", endpoint(get_protected), methods=["GET"]),
    Route("/projects/{id}/protected_environments/{name}", endpoint(delete_protected), methods=["DELETE"]),
]
