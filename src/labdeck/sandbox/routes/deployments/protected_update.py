"""`PUT /projects/:id/protected_environments/:name`: a protection's rules changed in place (GitLab 15.4+,
Premium; gitlab#351854). Mounted only where the version played has it (the catalogue's
`protected_environment_update`): before 15.4 the request is GitLab's catch-all 404.

As GitLab does it (`ee/lib/api/protected_environments.rb`, `ee/app/services/protected_environments/
base_service.rb` and `update_service.rb`, `ee/app/models/protected_environment.rb`,
`ee/app/models/protected_environments/deploy_access_level.rb`), in this order:

- Maintainer or administrator (403), then Grape's parameter checks (400, `protected.nested_entries`);
  `required_approval_count` above 0 is refused (422: deprecated, epic 9662);
- 404 `404 Not found` when the environment is not protected;
- `deploy_access_levels` and `approval_rules` are nested records: an entry with `id` changes that rule
  (the fields it gives), with `_destroy: true` drops it; an entry without `id` adds a rule. An `id` that is
  not one of this protection's rules is ActiveRecord's `RecordNotFound`: 404 `404 Not found`;
- an entry (not a drop) naming a user without Developer access to the project, or a group the project is
  not shared with, is left out without a word (`BaseService#valid_attribute?`);
- the result is validated as the model is (422, `{"message": [full messages]}`, nothing changed): at least
  one deploy rule (`Deploy access levels is too short (minimum is 1 character)`), and each rule exactly
  one of user, group and role (`Deploy access levels base Only one of the Group ID, User ID or Access
  Level must be specified.`);
- 200 with the protection (`protected.protected_json`).
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.domain.deployments import DeployRule
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint
from labdeck.sandbox.routes.deployments.protected import (
    find_protected,
    maintainer_project,
    nested_entries,
    protected_json,
    qualified,
)
from labdeck.sandbox.seed.deployments import StoredRule, deployments_data, stored
from labdeck.sandbox.store import Project, Store

WHO = ("access_level", "user_id", "group_id")
DEPRECATED_COUNT = ("Parameter 'required_approval_count' is deprecated and shouldn't be used. "
                    "See https://gitlab.com/groups/gitlab-org/-/epics/9662")
_HUMAN = {"deploy_access_levels": "Deploy access levels", "approval_rules": "Approval rules"}
_ONE_OF = "base Only one of the Group ID, User ID or Access Level must be specified."


def _changed(ctx: Ctx, project: Project, key: str, rules: list[StoredRule],
             entries: list[dict[str, Any]]) -> list[StoredRule | dict[str, Any]]:
    """`rules` after `entries`: kept records, changed ones (new `StoredRule`s with the same id) and rules to
    add (dicts: they get their ids once the whole change is valid)."""
    result: list[StoredRule | dict[str, Any]] = list(rules)
    by_id = {rule.id: rule for rule in rules}
    for entry in entries:
        ident = entry.get("id")
        if ident is not None and ident not in by_id:
            raise SandboxError.message(404, "404 Not found")
        if entry.get("_destroy"):
            result = [r for r in result if not (isinstance(r, StoredRule) and r.id == ident)]
            continue
        if not qualified(ctx, project, entry):
            continue
        if ident is None:
            result.append({name: entry.get(name) for name in (*WHO, "required_approvals",
                                                             "group_inheritance_type")})
            continue
        old = by_id[ident]
        values = {name: entry[name] if name in entry else getattr(old, name) for name in WHO}
        changed = StoredRule(**values, id=ident,
                             required_approvals=entry.get("required_approvals", old.required_approvals),
                             group_inheritance_type=entry.get("group_inheritance_type",
                                                              old.group_inheritance_type) or 0)
        result = [changed if isinstance(r, StoredRule) and r.id == ident else r for r in result]
    return result


def _problems(key: str, rules: list[StoredRule | dict[str, Any]]) -> list[str]:
    """The model's full messages about one list of rules."""
    problems = []
    if key == "deploy_access_levels" and not rules:
        problems.append(f"{_HUMAN[key]} is too short (minimum is 1 character)")
    for rule in rules:
        values = rule if isinstance(rule, dict) else {name: getattr(rule, name) for name in WHO}
        if sum(values.get(name) is not None for name in WHO) != 1:
            problems.append(f"{_HUMAN[key]} {_ONE_OF}")
            break
    return problems


def _stored(store: Store, rule: StoredRule | dict[str, Any], approval: bool) -> StoredRule:
    if isinstance(rule, StoredRule):
        return rule
    who = {name: rule[name] for name in WHO if rule.get(name) is not None}
    return stored(store, DeployRule(**who), (rule.get("required_approvals") or 1) if approval else None,
                  rule.get("group_inheritance_type") or 0)


async def update_protected(ctx: Ctx) -> Any:
    project = maintainer_project(ctx)
    lists = {key: nested_entries(ctx, key) for key in ("deploy_access_levels", "approval_rules")
             if key in ctx.params}
    count = ctx.params.int("required_approval_count")
    protected = find_protected(ctx, deployments_data(ctx.store), project)
    if count is not None and count > 0:
        raise SandboxError.message(422, DEPRECATED_COUNT)
    current = {"deploy_access_levels": protected.rules, "approval_rules": protected.approval_rules}
    after = {key: _changed(ctx, project, key, current[key], entries) for key, entries in lists.items()}
    problems = [problem for key, rules in after.items() for problem in _problems(key, rules)]
    if problems:
        raise SandboxError.message(422, problems)
    if "deploy_access_levels" in after:
        protected.rules = [_stored(ctx.store, r, False) for r in after["deploy_access_levels"]]
    if "approval_rules" in after:
        protected.approval_rules = [_stored(ctx.store, r, True) for r in after["approval_rules"]]
    if count is not None:
        protected.required_approval_count = count
    ctx.store.touch()
    return protected_json(ctx, protected)


routes: list[Route] = [
    Route("/projects/{id}/protected_environments/{name}", endpoint(update_protected), methods=["PUT"]),
]
