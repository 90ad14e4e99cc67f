"""Cleanup policies in the sandbox: `PUT /projects/:id` with `container_expiration_policy_attributes`
(Grape's type errors, then the model's validation with GitLab's messages, 400, `older_than` values as the
version played has them (`60d` from 14.4) and an enabled policy's blank `name_regex` refused; a save restarts
the interval), `GET /projects/:id/registry/protection/tag/rules`, and `POST /-/sandbox/clock?advance=SECONDS`
(administrators; outside `/api/v4`) which moves the sandbox's one clock forward and runs the policies that
fell due with the domain's rules (`domain.cleanup_policy.run_once`), as GitLab's workers would: each
repository's `cleanup_policy_started_at` and cleanup status are set, a run stopped by the per-run limit is
followed by more runs at once, and the policy's `next_run_at` moves to the start + cadence. An invalid policy
is disabled when it comes to run, as GitLab does.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from starlette.routing import Route

from labdeck.domain.cleanup_policy import EDITABLE, Policy, next_run_after, older_than_values, run_once, saved
from labdeck.domain.registry_cleanup import TagInfo
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso
from labdeck.sandbox.params import integer
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.seed.cleanup_policy import policy_data, policy_of, protected_patterns
from labdeck.sandbox.seed.cleanup_policy import seed as seed  # the area's seeding function
from labdeck.sandbox.seed.registry import Repository, registry_data, tag_info
from labdeck.sandbox.shapes import project_json
from labdeck.sandbox.store import Store

MAINTAINER = 40
ATTRIBUTES = "container_expiration_policy_attributes"
_LEVEL_NAMES = {40: "maintainer", 50: "owner", 60: "admin"}
_MAX_RUNS = 10_000


def _coerce(attrs: dict[str, Any]) -> dict[str, Any]:
    """Grape's coercion of the nested parameters (`keep_n` Integer, `enabled` Boolean, the rest String):
    400 `container_expiration_policy_attributes[keep_n] is invalid` for what it cannot read."""
    out: dict[str, Any] = {}
    bad: list[str] = []
    for name in EDITABLE:
        if name not in attrs:
            continue
        value = attrs[name]
        if value is None:
            out[name] = None
        elif name == "keep_n":
            number = integer(value) if isinstance(value, int | str) else None
            if number is None:
                bad.append(name)
            else:
                out[name] = number
        elif name == "enabled":
            text = str(value).strip().lower()
            if isinstance(value, bool) or text in ("true", "false", "1", "0"):
                out[name] = value if isinstance(value, bool) else text in ("true", "1")
            else:
                bad.append(name)
        elif isinstance(value, (dict, list)):
            bad.append(name)
        else:
            out[name] = str(value)
    if bad:
        raise SandboxError(400, {"error": ", ".join(f"{ATTRIBUTES}[{name}] is invalid" for name in bad)})
    return out


async def update_project(ctx: Ctx) -> Any:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    if not ctx.params.data:
        raise SandboxError(400, {"error": "at least one parameter must be provided"})
    raw = ctx.params.data.get(ATTRIBUTES)
    if raw is not None:
        if not isinstance(raw, dict):
            raise SandboxError.invalid(ATTRIBUTES)
        changed = replace(policy_of(ctx.store, project), **_coerce(raw))
        if errors := changed.errors(older_than=older_than_values(ctx.options.version_tuple)):
            raise SandboxError.validation({f"container_expiration_policy.{k}": v for k, v in errors.items()})
        policy_data(ctx.store).policies[project.id] = saved(changed, ctx.store.now())
        ctx.store.touch()
    return project_json(ctx.store, project, ctx.base, admin=ctx.is_admin)


def _rule_json(project_id: int, rule: Any) -> dict[str, Any]:
    return {"id": rule.id, "project_id": project_id, "tag_name_pattern": rule.tag_name_pattern,
            "minimum_access_level_for_push": _LEVEL_NAMES.get(rule.minimum_access_level_for_push),
            "minimum_access_level_for_delete": _LEVEL_NAMES.get(rule.minimum_access_level_for_delete)}


async def protection_tag_rules(ctx: Ctx) -> Any:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    return [_rule_json(project.id, rule) for rule in policy_data(ctx.store).protection.get(project.id, [])]


# --- running due policies ---------------------------------------------------------------------------------

def _infos(repo: Repository) -> list[TagInfo]:
    return [tag_info(t) for t in repo.tags.values()]


def _clean(store: Store, repo: Repository, policy: Policy, now: datetime) -> list[list[str]]:
    """One repository's cleanup: runs until one is not cut short by the per-run limit."""
    data = policy_data(store)
    protected = protected_patterns(store, repo.project_id)
    repo.cleanup_policy_started_at = now
    repo.cleanup_status = "cleanup_ongoing"
    runs: list[list[str]] = []
    for _ in range(_MAX_RUNS):
        result = run_once(_infos(repo), policy, now, sample=data.rng.sample, protected=protected,
                          max_list_size=data.max_list_size)
        for name in result.deleted:
            repo.tags.pop(name, None)
        runs.append(result.deleted)
        if not result.truncated or not result.deleted:
            break
    repo.cleanup_status = "cleanup_unfinished" if result.truncated else "cleanup_unscheduled"
    return runs


def run_due(store: Store) -> list[dict[str, Any]]:
    """Run every enabled policy whose `next_run_at` has passed; the log of what each run deleted."""
    data = policy_data(store)
    now = store.now()
    log: list[dict[str, Any]] = []
    for project_id in sorted(data.policies):
        policy = data.policies[project_id]
        if not policy.enabled or policy.next_run_at is None or policy.next_run_at > now:
            continue
        if policy.errors():
            data.policies[project_id] = replace(policy, enabled=False)
            log.append({"project_id": project_id, "disabled": "invalid policy"})
            continue
        data.policies[project_id] = replace(policy, next_run_at=next_run_after(policy, now))
        for repo in registry_data(store).of_projects({project_id}):
            runs = _clean(store, repo, policy, now)
            log.append({"project_id": project_id, "repository_id": repo.id, "runs": runs,
                        "status": repo.cleanup_status})
    data.runs.extend(log)
    if log:
        store.touch()
    return log


async def advance_clock(ctx: Ctx) -> Any:
    ctx.require_admin()
    try:
        seconds = float(ctx.params.str("advance") or "0")
    except ValueError:
        raise SandboxError.invalid("advance") from None
    if not seconds >= 0 or seconds > 10 * 365 * 86400:
        raise SandboxError.invalid("advance")
    clock = ctx.store.clock
    clock.advance(seconds)  # type: ignore[attr-defined]  # build_store makes the store's clock advanceable
    ctx.store.scheduler.run_due()
    return {"now": iso(ctx.store.now()), "runs": run_due(ctx.store)}


routes: list[Route] = [
    Route("/projects/{id}", endpoint(update_project), methods=["PUT"]),
    Route("/projects/{id}/registry/protection/tag/rules", endpoint(protection_tag_rules), methods=["GET"]),
]
ROOT_ROUTES = (Route("/-/sandbox/clock", endpoint(advance_clock), methods=["POST"]),)
