"""`labdeck registry policy`: the simulation of a project's cleanup policy, headless.

    labdeck registry policy PROJECT [--json] [--gitlab-registry] [--no-cache] [--no-graphql]
                            [--instance NAME] [--config FILE] [--demo]

It reads the project's `container_expiration_policy`, the per-run limit and the tag protection rules, reads
the detail of every tag of every repository of the project (as `registry plan` does), and prints what the
next run of the policy deletes and keeps on each repository and which rule decided each tag (the TUI's
words, `domain.cleanup_reasons`), how many runs it takes and when they fall, and why the policy did or did
not run. A disabled policy (or none) deletes nothing: the command says so and what a run would delete if it
were enabled, its rows marked `would delete`. The space freed is the blobs no kept tag uses
(`domain.registry_sizes`). Nothing is changed. An API error is one line on stderr, exit status 1.
"""

from __future__ import annotations

import argparse
from datetime import datetime
from typing import TYPE_CHECKING, Any

from labdeck.cli.support import add_reading_options, project_ref, registry_session, render_json

if TYPE_CHECKING:
    import httpx

    from labdeck.api.cleanup_policy import ProjectSimulation
    from labdeck.domain.cleanup_policy import Policy, RepositoryPlan


def add_parser(commands: Any) -> None:
    policy = commands.add_parser("policy", help="simulate the project's cleanup policy (deletes nothing)")
    policy.add_argument("project", metavar="PROJECT", help="project id or full path (group/project)")
    policy.add_argument("--json", action="store_true", help="print the simulation as JSON")
    policy.add_argument("--gitlab-registry", action="store_true",
                        help="the instance runs GitLab's own registry (metadata database): rules per page of "
                             "1,000 tags, runs bounded by time")
    add_reading_options(policy)


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def policy_json(policy: Policy | None) -> dict[str, Any] | None:
    if policy is None:
        return None
    return {**policy.attributes(), "next_run_at": _iso(policy.next_run_at)}


def why(sim: ProjectSimulation, plan: RepositoryPlan, index: int) -> str:
    """Which rule decided the tag, in the TUI's words."""
    from labdeck.domain.cleanup_reasons import reason_words

    policy = sim.policy
    return reason_words(plan.reasons[index], keep_n=plan.keep_n,
                        older_than=policy.older_than if policy is not None else None)


def simulation_json(sim: ProjectSimulation) -> dict[str, Any]:
    from labdeck.domain.cleanup_reasons import runs, verdict_word
    from labdeck.domain.registry_sizes import FREES_MEANS

    repositories = []
    for repo in sim.repositories:
        rest = (repo.repository.cleanup_policy_started_at, None)
        started, status = sim.cleanup.get(repo.repository.id, rest)
        entry: dict[str, Any] = {"id": repo.repository.id, "name": repo.repository.name,
                                 "path": repo.repository.path, "error": repo.error,
                                 "cleanup_policy_started_at": _iso(started), "cleanup_status": status}
        plan = repo.plan
        if plan is not None:
            order = sorted(range(len(plan.tags)), key=lambda i: plan.tags[i].name)
            entry.update({
                "candidates": plan.candidates, "deleted_count": plan.deleted_count,
                "bytes_freed": plan.bytes_freed, "bytes_freed_exact": plan.freed.exact,
                "truncated": plan.truncated, "runs": plan.runs,
                "first_run_at_most": plan.first_run_bound, "ties": list(plan.ties),
                "counts": {str(reason): count for reason, count in plan.counts.items()},
                "tags": [{"name": plan.tags[i].name, "created_at": _iso(plan.tags[i].created_at),
                          "digest": plan.tags[i].digest, "total_size": plan.tags[i].total_size,
                          "decision": verdict_word(plan.reasons[i].deleted, sim.policy),
                          "reason": plan.describe(i), "why": why(sim, plan, i)} for i in order],
            })
        repositories.append(entry)
    when = sim.when
    return {
        "project": str(sim.project), "project_path": sim.path, "now": sim.now.isoformat(),
        "policy": policy_json(sim.policy),
        "max_list_size": sim.max_list_size, "max_list_size_source": sim.limit_source,
        "protected_patterns": sim.protected, "invalid": sim.invalid,
        "schedule": None if when is None else {"first_run_at": _iso(when.first_at), "runs": when.runs,
                                               "following_run_at": _iso(when.next_scheduled),
                                               "text": when.describe()},
        "deleted_count": sim.deleted_count, "bytes_freed": sim.bytes_freed, "bytes_freed_means": FREES_MEANS,
        "deletes": runs(sim.policy), "why": sim.why, "repositories": repositories,
    }


def simulation_text(sim: ProjectSimulation) -> str:
    from labdeck.api.registry import format_age, format_size
    from labdeck.domain.cleanup_reasons import outcome_words, policy_words, runs, verdict_word
    from labdeck.domain.registry_sizes import size_text
    from labdeck.domain.text import sanitize

    policy = sim.policy
    deletes = runs(policy)
    lines = [sanitize(policy_words(policy)),
             f"per-run limit: {sim.max_list_size} ({sim.limit_source}); protection rules: "
             + ("unknown (cannot be read)" if sim.protected is None
                else sanitize(", ".join(sim.protected)) or "none")]
    if sim.when is not None:
        lines.append(sim.when.describe())
    lines.extend(f"- {sanitize(line)}" for line in sim.why)
    for repo in sim.repositories:
        name = sanitize(repo.repository.path or repo.repository.display_name)
        if repo.plan is None:
            lines.append(f"\n{name}: {sanitize(repo.error or 'not simulated')}")
            continue
        plan = repo.plan
        freed = f"{size_text(plan.freed)} (blobs no kept tag uses)"
        lines.append(f"\n{name}: {len(plan.tags)} tags, " + (
            f"{plan.deleted_count} to delete, frees {freed}" if deletes
            else f"none deleted; if enabled, {plan.deleted_count} would be, freeing {freed}"))
        order = sorted(range(len(plan.tags)), key=lambda i: (not plan.reasons[i].deleted, plan.tags[i].name))
        width = max([len(plan.tags[i].name) for i in order] + [4])
        verdicts = [verdict_word(plan.reasons[i].deleted, policy) for i in range(len(plan.tags))]
        mark = max([len(v) for v in verdicts] + [6])
        lines.append(f"{'':{mark}}  {'TAG':{width}}  {'AGE':>5}  {'SIZE':>8}  REASON")
        for i in order:
            tag = plan.tags[i]
            lines.append(f"{verdicts[i]:{mark}}  {sanitize(tag.name):{width}}  "
                         f"{format_age(tag.created_at, sim.now):>5}  {format_size(tag.total_size):>8}  "
                         f"{why(sim, plan, i)}")
    frees = f"{size_text(sim.freed)}, blobs no kept tag uses"
    lines.append(f"\ntotal: {outcome_words(policy, sim.deleted_count, frees)}")
    return "\n".join(lines)


async def run_policy(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None) -> str:
    from labdeck.api.cleanup_policy import CleanupPolicyService

    async with registry_session(args, transport) as (client, registry):
        sim = await CleanupPolicyService(client, registry).simulate(project_ref(args.project),
                                                                   gitlab_registry=args.gitlab_registry)
    return render_json(simulation_json(sim)) if args.json else simulation_text(sim)
