"""`labdeck api`: one authenticated REST call from the command line, printing JSON (like `glab api`/`gh api`).

    labdeck api [-X METHOD] PATH [-f key=value ...] [-F key=value ...] [-H 'Name: value' ...] [--paginate]
                [--instance NAME] [--sudo USER] [--config FILE] [--demo] [--read-only]

PATH is relative to `/api/v4` (the leading slash is optional) and may hold a query string; a full URL on
the instance (say, from a `Link` header) works too. Fields:
- `-f key=value` sends the value as a string;
- `-F key=value` sends a typed value: `true`, `false`, `null` and integers become JSON booleans, null and
  numbers; `@FILE` sends the file's contents as a string (`@-` reads stdin);
- `key[]=v` (repeatable) sends an array, `key[sub]=v` an object.
The method is GET, or POST when fields are given without `--paginate` (gh's rule); `-X` overrides it (an
unknown method is a usage error). With `-X GET` fields go as query parameters, with any other method as a
JSON body. `--paginate` (GET only) fetches every page and prints one JSON array, written page by page as the
pages arrive. JSON is printed indented on a terminal and compact otherwise (as `gh api` does); an error is
one line on stderr, such as `labdeck api: 404 Project Not Found` (the status once), with exit status 1 (2
for usage and config errors); so is a 2xx answered with an HTML page or with `NaN`/`Infinity` (not JSON).
The configured token never appears in the output or the errors.
`--read-only` (or `read_only = true` on the instance) sends reads only, and POSTs of GraphQL queries to the
instance's `/api/graphql` (a full URL) in the one shape the client allows (`domain.read_only`): anything else
is refused before it is sent, exit status 2.
`--demo` talks to the embedded sandbox in-process, as root.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import re
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl

from labdeck.cli.support import (
    UsageError,
    UsageParser,
    connection_settings,
    demo_transport,
    run_guarded,
)
from labdeck.domain.digits import parse_digits, parse_integer
from labdeck.domain.endpoints import RawPath

if TYPE_CHECKING:
    import httpx

    from labdeck.api.settings import ConnectionSettings

_INTEGER = re.compile(r"^-?(0|[1-9][0-9]*)$")
_READS = ("GET", "HEAD", "OPTIONS")
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def build_parser() -> argparse.ArgumentParser:
    parser = UsageParser(prog="labdeck api", description="Make an authenticated REST API v4 request.",
                     epilog="-f sends strings; -F sends true/false/null/integers typed, or @FILE contents.")
    parser.add_argument("path", metavar="PATH", help="path relative to /api/v4, e.g. projects/1/issues")
    parser.add_argument("-X", "--method",
                        help="HTTP method (default GET; POST when fields are given without --paginate)")
    parser.add_argument("-f", "--raw-field", action="append", default=[], metavar="KEY=VALUE",
                        help="a string field")
    parser.add_argument("-F", "--field", action="append", default=[], metavar="KEY=VALUE",
                        help="a typed field (true, false, null, integers) or @FILE contents")
    parser.add_argument("-H", "--header", action="append", default=[], metavar="'NAME: VALUE'",
                        help="an extra request header")
    parser.add_argument("--paginate", action="store_true", help="fetch every page; print one JSON array")
    parser.add_argument("--instance", metavar="NAME", help="instance from the config (or env, ci)")
    parser.add_argument("--sudo", metavar="USER", help="act as USER (admin token with the sudo scope)")
    parser.add_argument("--config", metavar="FILE", help="config file (default: $LABDECK_CONFIG or XDG)")
    parser.add_argument("--demo", action="store_true", help="use the embedded sandbox as root")
    parser.add_argument("--read-only", action="store_true",
                        help="send reads only (and GraphQL queries), as an instance with read_only = true")
    return parser


def typed_value(raw: str) -> Any:
    """The value of a `-F` field: JSON literals and integers typed, `@FILE` read, anything else a string."""
    if raw in ("true", "false"):
        return raw == "true"
    if raw == "null":
        return None
    number = parse_integer(raw) if _INTEGER.fullmatch(raw) else None  # no leading zeros: "007" stays text
    if number is not None:
        return number
    if raw.startswith("@"):
        name = raw[1:]
        if name == "-":
            return sys.stdin.read()
        try:
            with open(name, encoding="utf-8") as handle:
                return handle.read()
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) else "not UTF-8 text"
            raise UsageError(f"cannot read {name}: {reason}") from None
    return raw


def assign(target: dict[str, Any], key: str, value: Any) -> None:
    """Put `value` under `key` in `target`: `key[]` appends to an array, `key[sub]` sets in an object."""
    match = re.fullmatch(r"([^\[\]]+)\[([^\[\]]*)\]", key)
    if match is None:
        if "[" in key or "]" in key:
            raise UsageError(f"invalid field name {key!r}: use key, key[] or key[sub]")
        target[key] = value
        return
    name, sub = match.groups()
    if sub == "":
        existing = target.setdefault(name, [])
        if not isinstance(existing, list):
            raise UsageError(f"field {name!r} is given both as a value and as an array")
        existing.append(value)
    else:
        existing = target.setdefault(name, {})
        if not isinstance(existing, dict):
            raise UsageError(f"field {name!r} is given both as a value and as an object")
        existing[sub] = value


def parse_fields(raw_fields: list[str], typed_fields: list[str]) -> dict[str, Any]:
    """The fields of `-f` (strings) and `-F` (typed) as one dict, in command-line order within each kind."""
    fields: dict[str, Any] = {}
    for items, typed in ((raw_fields, False), (typed_fields, True)):
        for item in items:
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise UsageError(f"invalid field {item!r}: use key=value")
            assign(fields, key, typed_value(value) if typed else value)
    return fields


def split_path(path: str) -> tuple[str, dict[str, Any]]:
    """PATH without its query string, and the query as params (`key[]` and repeated keys become arrays)."""
    base, _, query = path.partition("?")
    params: dict[str, Any] = {}
    for key, value in parse_qsl(query, keep_blank_values=True):
        if key.endswith("[]"):
            params.setdefault(key[:-2], []).append(value)
        elif key in params:
            previous = params[key]
            params[key] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            params[key] = value
    if base.startswith(("http://", "https://")):
        return base, params  # a full URL (a `Link`): the client sends auth only to the instance's own host
    # a trailing slash means nothing to GitLab's router; the client would take the empty last segment for a
    # tolerant-reading placeholder (`models.tolerant.placeholder_in_path`) and refuse the request
    base = "/" + base.strip("/")
    if base.startswith("/api/v4/"):
        base = base[len("/api/v4"):]
    return base, params


def _merge(params: dict[str, Any], fields: dict[str, Any]) -> None:
    """Add fields to the path's query params: arrays and objects given in both are combined."""
    for key, value in fields.items():
        previous = params.get(key)
        if isinstance(previous, list) and isinstance(value, list):
            params[key] = [*previous, *value]
        elif isinstance(previous, dict) and isinstance(value, dict):
            params[key] = {**previous, **value}
        else:
            params[key] = value


def parse_headers(items: list[str]) -> dict[str, str]:
    headers: dict[str, str] = {}
    for item in items:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            raise UsageError(f"invalid header {item!r}: use 'Name: value'")
        headers[name.strip()] = value.strip()
    return headers


class _TextOut:
    """A binary face for a text-only stdout (a test's `StringIO`)."""

    def __init__(self, text: Any) -> None:
        self._text = text

    def write(self, data: bytes) -> int:
        return int(self._text.write(data.decode("utf-8", "surrogateescape")))

    def flush(self) -> None:
        self._text.flush()


def _stdout_bytes() -> Any:
    """Where JSON bytes go: stdout's buffer (after flushing any text written before)."""
    sys.stdout.flush()
    return getattr(sys.stdout, "buffer", None) or _TextOut(sys.stdout)


async def _call(args: argparse.Namespace, settings: ConnectionSettings, method: str, fields: dict[str, Any],
                transport: httpx.AsyncBaseTransport | None) -> tuple[str, Any]:
    """Send the request; returns `(kind, body)`, kind one of "json", "text", "bytes", "empty", or "done"
    when `--paginate` has written its output already."""
    from labdeck.api.client import ApiClient

    path, params = split_path(args.path)
    headers = parse_headers(args.header)
    async with ApiClient(settings, transport=transport) as client:
        if args.paginate:
            _merge(params, fields)
            per_page = params.pop("per_page", 100)
            pages = parse_digits(str(per_page))
            if pages is None or pages < 1:
                raise UsageError(f"invalid per_page {per_page!r}")
            from labdeck.cli.json_out import ArrayWriter

            writer = ArrayWriter(_stdout_bytes(), pretty=sys.stdout.isatty())
            await client.fetch_all(RawPath(path), params, per_page=pages, on_items=writer.add)
            writer.close()
            return "done", None
        if method in _READS:
            _merge(params, fields)
            response = await client.request(method, RawPath(path), params=params, headers=headers)
        else:
            response = await client.request(method, RawPath(path), params=params, json=fields or None,
                                            headers=headers)
        body = response.content
        if not body.strip():
            return "empty", None
        content_type = response.headers.get("content-type", "").lower()
        if "json" in content_type:
            return "json", await client.read_async(response)
        if "html" in content_type or _HTML_START.match(body):
            raise _html_page(method, client.address.where(path), response)
        try:
            return "text", body.decode("utf-8")
        except UnicodeDecodeError:
            return "bytes", body


_HTML_START = re.compile(rb"\s*(<!doctype\s+html|<html[\s>])", re.IGNORECASE)


def _html_page(method: str, where: str, response: httpx.Response) -> Exception:
    """The error for a 2xx answered with an HTML page (a proxy's, a login or maintenance page): the API
    always answers JSON, so it is a failure, named by the page's title when it has one."""
    from labdeck.api.errors import MalformedResponse, error_for

    title = error_for(response.status_code, response.content[:65536]).message
    what = f" ({title})" if title and not title.startswith(str(response.status_code)) else ""
    return MalformedResponse(f"{method} {where}: the server answered {response.status_code} with an HTML "
                             f"page{what}, not JSON (a proxy, login or maintenance page?)")


def _print_body(kind: str, body: Any) -> None:
    """Write the response: JSON pretty; text as is (made safe on a terminal); bytes never to a terminal.
    The configured token(s) are removed by value from each, bytes that are not UTF-8 included."""
    if kind == "json":
        from labdeck.cli.json_out import encode

        out = _stdout_bytes()
        out.write(encode(body, pretty=sys.stdout.isatty()) + b"\n")
        out.flush()
    elif kind == "bytes":
        if sys.stdout.isatty():
            raise UsageError(f"binary response ({len(body)} bytes) not printed to a terminal; "
                             "redirect stdout to a file")
        from labdeck.domain.redaction import redact_known_bytes

        sys.stdout.flush()
        sys.stdout.buffer.write(redact_known_bytes(body))  # a server echoing headers echoes the token
        sys.stdout.buffer.flush()
    elif kind == "text":
        from labdeck.domain.redaction import redact_known

        body = redact_known(body)
        if sys.stdout.isatty():
            from labdeck.domain.text import sanitize

            body = sanitize(body)
        sys.stdout.write(body if body.endswith("\n") else body + "\n")


def run_api_command(argv: list[str], *, transport: httpx.AsyncBaseTransport | None = None) -> int:
    """Run `labdeck api ARGV`; returns the exit status. `transport` replaces the network (tests)."""

    def body() -> int:
        nonlocal transport
        args = build_parser().parse_args(argv)
        if args.demo and args.instance:
            raise UsageError("--demo and --instance cannot be used together")
        fields = parse_fields(args.raw_field, args.field)
        method = (args.method or ("POST" if fields and not args.paginate else "GET")).upper()
        if method not in _METHODS:
            raise UsageError(f"invalid method {args.method!r}: use one of {', '.join(sorted(_METHODS))}")
        if args.paginate and (method != "GET" or args.header):
            raise UsageError("--paginate works with GET only, and without -H")
        settings = connection_settings(args)
        if args.sudo:
            settings = dataclasses.replace(settings, sudo=args.sudo)
        if args.read_only:  # the client refuses what a read-only session may not send (`domain.read_only`)
            settings = dataclasses.replace(settings, read_only=True)
        if args.demo and transport is None:
            transport = demo_transport()
        kind, result = asyncio.run(_call(args, settings, method, fields, transport))
        _print_body(kind, result)
        return 0

    return run_guarded("labdeck api", body)
