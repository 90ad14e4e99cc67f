"""`labdeck registry plan`: the bulk tag delete preview, headless (`labdeck registry policy`, the cleanup
policy's simulation, lives in `cli/registry_policy.py`).

    labdeck registry plan PROJECT REPOSITORY_ID --delete REGEX [--keep REGEX] [--keep-n N]
                          [--older-than 1d] [--json] [--no-cache] [--no-graphql]
                          [--instance NAME] [--config FILE] [--demo]

It fetches the detail of every tag of the repository (through GraphQL where the instance has it, else one
REST request per tag; names read in the last 15 minutes come from the tag-detail cache) and applies the
same planner the sandbox and the TUI use (`domain.registry_cleanup`), then prints which tags a bulk
delete with these rules would delete and which it would keep, and why; the space freed counts a shared
digest once. Nothing is deleted. Invalid rules (an RE2 error, a negative N, an unreadable duration) are
reported before any request, exit status 2;
an API error is one line on stderr, exit status 1. `--demo` reads the embedded sandbox as root.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from labdeck.cli.registry_policy import add_parser as add_policy_parser
from labdeck.cli.support import (
    UsageError,
    UsageParser,
    add_reading_options,
    connection_settings,
    demo_transport,
    render_json,
    run_guarded,
)

if TYPE_CHECKING:
    import httpx

    from labdeck.api.registry import RegistryService
    from labdeck.domain.registry_cleanup import CleanupPlan, CleanupRules


PLAN_PROG = "labdeck registry plan"  # the `--help` a plan's usage error points to


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="labdeck registry", description="Container registry tools.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=UsageParser)
    plan = commands.add_parser("plan", help="preview a bulk tag delete (deletes nothing)")
    plan.add_argument("project", metavar="PROJECT", help="project id or full path (group/project)")
    plan.add_argument("repository_id", metavar="REPOSITORY_ID", type=int, help="registry repository id")
    plan.add_argument("--delete", required=True, metavar="REGEX", help="name_regex_delete (RE2, whole name)")
    plan.add_argument("--keep", metavar="REGEX", help="name_regex_keep (RE2): overrides --delete")
    plan.add_argument("--keep-n", type=int, metavar="N", help="keep the N newest matching tags")
    plan.add_argument("--older-than", metavar="DURATION", help="delete only tags older than this (1d)")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    add_reading_options(plan)
    add_policy_parser(commands)
    return parser


def rules_of(args: argparse.Namespace) -> CleanupRules:
    from labdeck.domain.registry_cleanup import CleanupRules

    rules = CleanupRules(args.delete, args.keep, args.keep_n, args.older_than)
    problems = rules.errors()
    if problems:
        raise UsageError("; ".join(problems), PLAN_PROG)
    return rules


def plan_json(plan: CleanupPlan, rules: CleanupRules, project: str, repository_id: int,
              now: datetime) -> dict[str, Any]:
    from labdeck.domain.registry_cleanup import preview_order

    order = preview_order(plan)
    return {
        "project": project, "repository_id": repository_id,
        "rules": {"name_regex_delete": rules.name_regex_delete, "name_regex_keep": rules.name_regex_keep,
                  "keep_n": rules.keep_n, "older_than": rules.older_than},
        "now": now.isoformat(), "cutoff": plan.cutoff.isoformat() if plan.cutoff else None,
        "deleted_count": plan.deleted_count, "kept_count": plan.kept_count, "bytes_freed": plan.bytes_freed,
        "counts": {str(reason): count for reason, count in plan.counts.items()},
        "tags": [{"name": plan.tags[i].name,
                  "created_at": created.isoformat() if (created := plan.tags[i].created_at) else None,
                  "digest": plan.tags[i].digest, "total_size": plan.tags[i].total_size,
                  "decision": str(plan.decision(i).decision), "reason": plan.decision(i).describe()}
                 for i in order],
    }


def plan_text(plan: CleanupPlan, now: datetime) -> str:
    from labdeck.api.registry import format_age, format_size
    from labdeck.domain.registry_cleanup import preview_order
    from labdeck.domain.text import sanitize

    order = preview_order(plan)  # the TUI preview's order: deletions first, each part newest first
    width = max([len(plan.tags[i].name) for i in order] + [4])
    lines = [f"{'':6}  {'TAG':{width}}  {'AGE':>5}  {'SIZE':>8}  REASON"]
    for i in order:
        tag, decision = plan.tags[i], plan.decision(i)
        lines.append(f"{decision.decision!s:6}  {sanitize(tag.name):{width}}  "
                     f"{format_age(tag.created_at, now):>5}  {format_size(tag.total_size):>8}  "
                     f"{decision.describe()}")
    cutoff = f"; cut-off {plan.cutoff:%Y-%m-%d %H:%M} UTC" if plan.cutoff else ""
    lines.append(f"{len(plan.tags)} tags: {plan.deleted_count} to delete, {plan.kept_count} kept; frees "
                 f"{format_size(plan.bytes_freed)} (shared digests counted once){cutoff}")
    return "\n".join(lines)


async def compute_plan(service: RegistryService, project: str, repository_id: int, rules: CleanupRules,
                       now: datetime | None = None) -> tuple[CleanupPlan, datetime]:
    """The plan and the moment it was made for: `now`, else the instance's time once its tags are read
    (`ApiClient.server_time`: the instance's clock, not this machine's, says how old a tag is)."""
    from labdeck.domain.digits import parse_digits
    from labdeck.domain.registry_cleanup import CleanupPlanner

    number = parse_digits(project)
    ref: int | str = project if number is None else number
    details = await service.tag_details(ref, repository_id)
    at = now or service.client.server_time.now()
    return CleanupPlanner([d.to_tag_info() for d in details]).plan(rules, at), at


async def _run(args: argparse.Namespace, rules: CleanupRules,
               transport: httpx.AsyncBaseTransport | None) -> str:
    from labdeck.api.client import ApiClient
    from labdeck.api.registry import RegistryService
    from labdeck.api.tag_cache import TagDetailCache
    settings = connection_settings(args)
    cache = None if args.no_cache else TagDetailCache.for_instance(settings.base_url)
    if args.demo and transport is None:
        transport = demo_transport()
    async with ApiClient(settings, transport=transport) as client:
        service = RegistryService(client, tag_cache=cache, graphql=not args.no_graphql)
        plan, now = await compute_plan(service, args.project, args.repository_id, rules)
    if args.json:
        return render_json(plan_json(plan, rules, args.project, args.repository_id, now))
    return plan_text(plan, now)


def run_registry_command(argv: list[str], *, transport: httpx.AsyncBaseTransport | None = None) -> int:
    """Run `labdeck registry ARGV`; returns the exit status. `transport` replaces the network (tests)."""

    def body() -> int:
        args = build_parser().parse_args(argv)
        if args.demo and args.instance:
            raise UsageError("--demo and --instance cannot be used together",
                             f"labdeck registry {args.command}")
        if args.command == "policy":
            from labdeck.cli.registry_policy import run_policy

            sys.stdout.write(asyncio.run(run_policy(args, transport)) + "\n")
            return 0
        rules = rules_of(args)
        sys.stdout.write(asyncio.run(_run(args, rules, transport)) + "\n")
        return 0

    return run_guarded("labdeck registry", body)
