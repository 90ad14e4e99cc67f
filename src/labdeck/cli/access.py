"""`labdeck access`: the access review headless (issue 36), the `:access` area's twin.

    labdeck access members   SCOPE|--instance [--level LEVEL] [--user USER] [--expires-within N] [--json]
    labdeck access variables SCOPE|--instance [--findings] [--key KEY] [--level LEVEL] [--json]
    labdeck access tokens    SCOPE|--instance [--state STATE] [--expires-within N | --expiring]
                                               [--unused-for N] [--never-expires] [--json]
    (each also: [--server NAME] [--config FILE] [--demo])

SCOPE is a group's full path (its subgroups and their projects included); `--instance` reviews the whole
instance (administrators). `--server NAME` picks the instance from the config (`--instance` is the scope
here, where the other commands take it for the config's instance). `--json` prints one JSON object per row,
one a line, with the fields `MEMBER_FIELDS`, `VARIABLE_FIELDS` and `TOKEN_FIELDS` name; the text form is a
table. Items that could not be read (a 403 or 404 project) are named on stderr, one a line, and the review
goes on; the exit status is then still 0. No variable value is read, no token value printed.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING, Any, Final

from labdeck.cli.support import UsageError, UsageParser, connection_settings, demo_transport, run_guarded

if TYPE_CHECKING:
    import httpx

    from labdeck.api.access_scope import Unreadable
    from labdeck.domain.access_members import Grant
    from labdeck.domain.access_tokens import TokenRow
    from labdeck.domain.variable_findings import VariableRow

PROG: Final = "labdeck access"
MEMBER_FIELDS: Final = ("user", "path", "kind", "access_level", "level", "via", "expires_at")
VARIABLE_FIELDS: Final = ("key", "level", "path", "environment_scope", "protected", "masked", "hidden", "raw",
                          "wins", "findings")
TOKEN_FIELDS: Final = ("id", "kind", "name", "owner", "scopes", "created_at", "last_used_at", "expires_at",
                       "state", "days_left")


def _scope_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("scope", metavar="SCOPE", nargs="?", help="a group's full path (subgroups included)")
    where.add_argument("--instance", action="store_true", help="the whole instance (administrators)")
    parser.add_argument("--json", action="store_true", help="one JSON object per row, one a line")
    parser.add_argument("--server", metavar="NAME", help="instance from the config")
    parser.add_argument("--config", metavar="FILE", help="config file (default: $LABDECK_CONFIG or XDG)")
    parser.add_argument("--demo", action="store_true", help="use the embedded sandbox as root")


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog=PROG, description="Who can do what, and what is exposed, across a group or the "
                                                "instance.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=UsageParser)
    members = commands.add_parser("members", help="every membership: level, where, how, expiry")
    _scope_options(members)
    members.add_argument("--level", metavar="LEVEL", help="at least this level (owner, maintainer, ...)")
    members.add_argument("--user", metavar="USER", help="this user's memberships only")
    members.add_argument("--expires-within", type=int, metavar="N", help="ending within N days")
    variables = commands.add_parser("variables", help="every CI/CD variable's flags, which wins, findings")
    _scope_options(variables)
    variables.add_argument("--findings", action="store_true", help="only the definitions with findings")
    variables.add_argument("--key", metavar="KEY", help="this key (`*` patterns allowed)")
    variables.add_argument("--level", choices=("instance", "group", "project"), help="defined at this level")
    tokens = commands.add_parser("tokens", help="personal, group and project access tokens and their state")
    _scope_options(tokens)
    tokens.add_argument("--state", choices=("active", "expired", "revoked"), help="in this state")
    soon = tokens.add_mutually_exclusive_group()
    soon.add_argument("--expires-within", type=int, metavar="N", help="expiring within N days")
    soon.add_argument("--expiring", action="store_true", help="expiring within 30 days")
    tokens.add_argument("--unused-for", type=int, metavar="N", help="not used for N days")
    tokens.add_argument("--never-expires", action="store_true", help="tokens without an expiry date")
    return parser


def _day(value: date | datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def member_json(grant: Grant) -> dict[str, Any]:
    return {"user": grant.username, "path": grant.path, "kind": grant.kind,
            "access_level": grant.access_level, "level": grant.level, "via": grant.via_text,
            "expires_at": _day(grant.expires_at)}


def variable_json(row: VariableRow) -> dict[str, Any]:
    d = row.definition
    return {"key": d.key, "level": d.level, "path": d.path, "environment_scope": d.environment_scope,
            "protected": d.protected, "masked": d.masked, "hidden": d.hidden, "raw": d.raw, "wins": row.wins,
            "findings": list(row.findings)}


def token_json(row: TokenRow, today: date) -> dict[str, Any]:
    return {"id": row.id, "kind": row.kind, "name": row.name, "owner": row.owner, "scopes": list(row.scopes),
            "created_at": _day(row.created_at), "last_used_at": _day(row.last_used_at),
            "expires_at": _day(row.expires_at), "state": row.state(today), "days_left": row.days_left(today)}


def _table(rows: list[dict[str, Any]], fields: tuple[str, ...]) -> str:
    from labdeck.domain.text import sanitize

    def cell(value: Any) -> str:
        if isinstance(value, list):
            return ",".join(str(v) for v in value)
        return "" if value is None else sanitize(str(value))

    cells = [[cell(row[f]) for f in fields] for row in rows]
    widths = [max([len(f), *(len(c[i]) for c in cells)]) for i, f in enumerate(fields)]
    lines = ["  ".join(f.upper().ljust(w) for f, w in zip(fields, widths, strict=True)).rstrip()]
    lines += ["  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells]
    return "\n".join(lines if rows else [*lines, "nothing found"])


def _lines(rows: list[dict[str, Any]], fields: tuple[str, ...], as_json: bool) -> str:
    from labdeck.cli.json_out import encode

    if as_json:
        return "".join(encode(row, pretty=False).decode("utf-8", "surrogatepass") + "\n" for row in rows)
    return _table(rows, fields) + "\n"


async def _members(args: argparse.Namespace, client: Any, today: date) -> tuple[str, list[Unreadable]]:
    from labdeck.api.access_members import MembersReview
    from labdeck.domain.access_members import MemberFilter, parse_level_filter

    try:
        wanted = MemberFilter(level=parse_level_filter(args.level), user=args.user,
                              expires_within=args.expires_within)
    except ValueError as error:
        raise UsageError(str(error), f"{PROG} members") from None
    read = await MembersReview(client).review(args.scope, user=args.user if args.scope is None else None)
    rows = [member_json(g) for g in read.grants if wanted.matches(g, today)]
    text = _lines(rows, MEMBER_FIELDS, args.json)
    if not args.json and read.owners:
        text += "\nOwners per group: " + ", ".join(f"{path} {count}" for path, count in read.owners.items()) \
            + "\n"
    return text, read.unreadable


async def _variables(args: argparse.Namespace, client: Any) -> tuple[str, list[Unreadable]]:
    from labdeck.api.access_variables import VariablesReview
    from labdeck.domain.variable_findings import VariableFilter

    wanted = VariableFilter(findings_only=args.findings, key=args.key, level=args.level)
    read = await VariablesReview(client).review(args.scope)
    rows = [variable_json(r) for r in read.rows if wanted.matches(r)]
    return _lines(rows, VARIABLE_FIELDS, args.json), read.unreadable


async def _tokens(args: argparse.Namespace, client: Any, now: datetime) -> tuple[str, list[Unreadable]]:
    from labdeck.api.access_tokens import AccessTokensService, TokensReview
    from labdeck.domain.access_tokens import DEFAULT_EXPIRING_DAYS, TokenFilter

    within = DEFAULT_EXPIRING_DAYS if args.expiring else args.expires_within
    wanted = TokenFilter(state=args.state, expires_within=within, unused_for=args.unused_for,
                         never_expires=args.never_expires)
    service = AccessTokensService(client)
    unreadable: list[Unreadable] = []
    if args.scope is None:  # the instance
        rows = (await service.personal_review()).rows
    else:
        read = await TokensReview(service).review(args.scope)
        rows, unreadable = read.rows, read.unreadable
    out = [token_json(r, now.date()) for r in rows if wanted.matches(r, now)]
    return _lines(out, TOKEN_FIELDS, args.json), unreadable


async def _run(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None,
               now: datetime) -> tuple[str, list[Unreadable]]:
    from labdeck.api.client import ApiClient

    settings = connection_settings(args)
    if args.demo and transport is None:
        transport = demo_transport()
    async with ApiClient(settings, transport=transport) as client:
        if args.command == "members":
            return await _members(args, client, now.date())
        if args.command == "variables":
            return await _variables(args, client)
        return await _tokens(args, client, now)


def run_access_command(argv: list[str], *, transport: httpx.AsyncBaseTransport | None = None,
                       now: datetime | None = None) -> int:
    """Run `labdeck access ARGV`; returns the exit status. `transport` replaces the network and `now` the
    clock (tests)."""

    def body() -> int:
        from labdeck.domain.text import sanitize

        args = build_parser().parse_args(argv)
        if args.demo and args.server:
            raise UsageError("--demo and --server cannot be used together", f"{PROG} {args.command}")
        # `scope` None is the instance; `instance` becomes the config's, as `connection_settings` reads it
        args.scope = None if args.instance else args.scope.strip("/")
        args.instance = args.server
        text, unreadable = asyncio.run(_run(args, transport, now or datetime.now(UTC)))
        sys.stdout.write(text)
        for item in unreadable:
            print(f"{PROG}: skipped {sanitize(item.path)} ({item.what}): {item.message}", file=sys.stderr)
        return 0

    return run_guarded(PROG, body)
