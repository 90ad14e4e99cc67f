"""`labdeck registry plan`: the bulk tag delete preview, headless.

    labdeck registry plan group/project/image --delete REGEX [--keep REGEX] [--keep-n N]
                          [--older-than 1d] [--json] [--no-cache] [--no-graphql]
                          [--instance NAME] [--config FILE] [--demo]
    labdeck registry plan PROJECT --repository NAME ...
    labdeck registry plan PROJECT REPOSITORY_ID ...       (the numeric form; checked to be PROJECT's)

The repository is found by its path (`api.registry_paths`; a project's own path is its root image), by its
project and name, or by its id, which must be the project's. It fetches the detail of every tag of the
repository (through GraphQL where the instance has it, else one REST request per tag; names read in the
last 15 minutes come from the tag-detail cache) and applies the same planner the sandbox and the TUI use
(`domain.registry_cleanup`), then prints which tags a bulk delete with these rules would delete and which it
would keep, and which rule decided (`domain.cleanup_reasons`, the TUI's words); the space freed is the blobs
no kept tag uses (`domain.registry_sizes`). Nothing is deleted. Invalid rules (an RE2 error, a negative N,
an unreadable duration) are reported before any request, exit status 2; an API error, or a repository that
is not the project's, is one line on stderr, exit status 1. `--demo` reads the embedded sandbox as root.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from labdeck.cli.registry_list import add_parser as add_list_parser
from labdeck.cli.registry_policy import add_parser as add_policy_parser
from labdeck.cli.support import (
    UsageError,
    UsageParser,
    add_reading_options,
    registry_session,
    render_json,
    run_guarded,
)

if TYPE_CHECKING:
    import httpx

    from labdeck.api.models.registry import RegistryRepository
    from labdeck.api.registry import RegistryService
    from labdeck.domain.registry_cleanup import CleanupPlan, CleanupRules


PLAN_PROG = "labdeck registry plan"  # the `--help` a plan's usage error points to
PLAN_FORMS = """the repository, any of:
  labdeck registry plan group/project/image ...   its path (the project's own path: its root image)
  labdeck registry plan group/project --repository NAME ...
  labdeck registry plan PROJECT REPOSITORY_ID ... its id, which must be PROJECT's
`labdeck registry list PROJECT` prints each repository's path and id."""


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="labdeck registry", description="Container registry tools.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=UsageParser)
    plan = commands.add_parser("plan", help="preview a bulk tag delete (deletes nothing)", epilog=PLAN_FORMS,
                               formatter_class=argparse.RawDescriptionHelpFormatter)
    plan.add_argument("target", metavar="PATH",
                      help="the repository's path (group/project/image), or its project (path or id)")
    plan.add_argument("repository_id", metavar="REPOSITORY_ID", type=int, nargs="?",
                      help="the repository's id (must be the project's)")
    plan.add_argument("--repository", metavar="NAME",
                      help="the repository's name in the project (`(root)` for the project's own image)")
    plan.add_argument("--delete", required=True, metavar="REGEX", help="name_regex_delete (RE2, whole name)")
    plan.add_argument("--keep", metavar="REGEX", help="name_regex_keep (RE2): overrides --delete")
    plan.add_argument("--keep-n", type=int, metavar="N", help="keep the N newest matching tags")
    plan.add_argument("--older-than", metavar="DURATION", help="delete only tags older than this (1d)")
    plan.add_argument("--json", action="store_true", help="print the plan as JSON")
    add_reading_options(plan)
    add_policy_parser(commands)
    add_list_parser(commands)
    return parser


def rules_of(args: argparse.Namespace) -> CleanupRules:
    from labdeck.domain.registry_cleanup import CleanupRules

    rules = CleanupRules(args.delete, args.keep, args.keep_n, args.older_than)
    problems = rules.errors()
    if problems:
        raise UsageError("; ".join(problems), PLAN_PROG)
    return rules


def why(plan: CleanupPlan, index: int, rules: CleanupRules) -> str:
    """Which rule decided the tag, in the TUI preview's words."""
    from labdeck.domain.cleanup_reasons import DELETE_REGEX, reason_words

    return reason_words(plan.reasons[index], keep_n=rules.keep_n, older_than=rules.older_than,
                        regex=DELETE_REGEX)


def plan_json(plan: CleanupPlan, rules: CleanupRules, project: str, repo: RegistryRepository,
              now: datetime) -> dict[str, Any]:
    from labdeck.domain.registry_cleanup import preview_order
    from labdeck.domain.registry_sizes import FREES_MEANS

    order = preview_order(plan)
    return {
        "project": project, "repository_id": repo.id, "repository_path": repo.path,
        "rules": {"name_regex_delete": rules.name_regex_delete, "name_regex_keep": rules.name_regex_keep,
                  "keep_n": rules.keep_n, "older_than": rules.older_than},
        "now": now.isoformat(), "cutoff": plan.cutoff.isoformat() if plan.cutoff else None,
        "deleted_count": plan.deleted_count, "kept_count": plan.kept_count, "bytes_freed": plan.bytes_freed,
        "bytes_freed_exact": plan.freed.exact, "bytes_freed_means": FREES_MEANS,
        "counts": {str(reason): count for reason, count in plan.counts.items()},
        "tags": [{"name": plan.tags[i].name,
                  "created_at": created.isoformat() if (created := plan.tags[i].created_at) else None,
                  "digest": plan.tags[i].digest, "total_size": plan.tags[i].total_size,
                  "decision": str(plan.decision(i).decision), "reason": plan.decision(i).describe(),
                  "why": why(plan, i, rules)}
                 for i in order],
    }


def plan_text(plan: CleanupPlan, now: datetime, rules: CleanupRules) -> str:
    from labdeck.api.registry import format_age, format_size
    from labdeck.domain.registry_cleanup import preview_order
    from labdeck.domain.registry_sizes import size_text
    from labdeck.domain.text import sanitize

    order = preview_order(plan)  # the TUI preview's order: deletions first, each part newest first
    width = max([len(plan.tags[i].name) for i in order] + [4])
    lines = [f"{'':6}  {'TAG':{width}}  {'AGE':>5}  {'SIZE':>8}  REASON"]
    for i in order:
        tag, decision = plan.tags[i], plan.decision(i)
        lines.append(f"{decision.decision!s:6}  {sanitize(tag.name):{width}}  "
                     f"{format_age(tag.created_at, now):>5}  {format_size(tag.total_size):>8}  "
                     f"{why(plan, i, rules)}")
    cutoff = f"; cut-off {plan.cutoff:%Y-%m-%d %H:%M} UTC" if plan.cutoff else ""
    lines.append(f"{len(plan.tags)} tags: {plan.deleted_count} to delete, {plan.kept_count} kept; frees "
                 f"{size_text(plan.freed)} (blobs no kept tag uses){cutoff}")
    return "\n".join(lines)


def target_of(args: argparse.Namespace) -> tuple[int | None, str | None]:
    """The repository id or name given beside PATH (neither: PATH is the repository's own path)."""
    if args.repository_id is not None and args.repository is not None:
        raise UsageError("give the repository's id or --repository NAME, not both", PLAN_PROG)
    return args.repository_id, args.repository


async def compute_plan(service: RegistryService, repo: RegistryRepository, rules: CleanupRules,
                       now: datetime | None = None) -> tuple[CleanupPlan, datetime]:
    """The plan and the moment it was made for: `now`, else the instance's time once its tags are read
    (`ApiClient.server_time`: the instance's clock, not this machine's, says how old a tag is)."""
    from labdeck.api.registry_paths import owner_path
    from labdeck.domain.registry_cleanup import CleanupPlanner

    details = await service.tag_details(repo.project_id or owner_path(repo), repo.id,
                                        tags_count=repo.tags_count, path=repo.path)
    at = now or service.client.server_time.now()
    return CleanupPlanner([d.to_tag_info() for d in details]).plan(rules, at), at


async def _run(args: argparse.Namespace, rules: CleanupRules,
               transport: httpx.AsyncBaseTransport | None) -> str:
    from labdeck.api.registry_paths import find_repository

    repository_id, name = target_of(args)
    async with registry_session(args, transport) as (_client, service):
        repo = await find_repository(service, args.target, repository_id=repository_id, name=name)
        plan, now = await compute_plan(service, repo, rules)
    if args.json:
        return render_json(plan_json(plan, rules, args.target, repo, now))
    return plan_text(plan, now, rules)


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
        if args.command == "list":
            from labdeck.cli.registry_list import run_list

            sys.stdout.write(asyncio.run(run_list(args, transport)) + "\n")
            return 0
        rules = rules_of(args)
        sys.stdout.write(asyncio.run(_run(args, rules, transport)) + "\n")
        return 0

    return run_guarded("labdeck registry", body)
