"""A GitLab-shaped list server that costs (almost) nothing, for measuring the client alone (run on demand):

    .venv/bin/python tests/bench/zero_server.py [--latency-ms 50] [--port 0] [--issues 50015]
                                               [--projects 20000] [--users 20000]

Serves `GET /api/v4/{issues,projects,users}` with offset pagination: every page of 100 (and of 20, the
default) is encoded up front, so a request costs the server a dictionary look-up, the `Link` header and
`--latency-ms` of sleep (asyncio, so concurrent requests overlap as on a real instance). Headers are
GitLab's: `Link` (prev/next/first, and last when counted), `x-page`, `x-per-page`, `x-next-page`,
`x-prev-page`, `x-total`, `x-total-pages`. Under the prefix `/nototals` (base URL
`http://host:port/nototals`) the totals and `rel="last"` are left out, as GitLab does above 10,000 records.

The items are copies of the demo sandbox's own issue, project and user shapes (ids, titles and paths
varied). Prints `listening on http://127.0.0.1:PORT` when ready; stop it with SIGINT or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import json
import math
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

PER_PAGES = (20, 100)
SINGLES = ("user", "version", "metadata")  # answered as the demo sandbox does (the app asks at start)


def templates() -> dict[str, dict[str, Any]]:
    """One issue, project and user as the demo sandbox answers them (root's view)."""
    import httpx

    from labdeck.sandbox.app import create_app

    async def fetch() -> dict[str, dict[str, Any]]:
        transport = httpx.ASGITransport(app=create_app())
        headers = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
        out = {}
        async with httpx.AsyncClient(transport=transport, base_url="http://sandbox/api/v4",
                                     headers=headers) as client:
            for name, params in (("issues", {"scope": "all", "with_labels_details": "true"}),
                                 ("projects", {}), ("users", {})):
                response = await client.get(f"/{name}", params={**params, "per_page": 20})
                items = response.json()
                out[name] = max(items, key=lambda item: len(json.dumps(item)))  # the fullest one
            for name in SINGLES:
                out[name] = (await client.get(f"/{name}")).json()
        return out
    return asyncio.run(fetch())


def make_items(kind: str, template: dict[str, Any], count: int) -> list[dict[str, Any]]:
    items = []
    for n in range(1, count + 1):
        item = copy.deepcopy(template)
        item["id"] = n
        if kind == "issues":
            item["iid"] = n % 1000 + 1
            item["title"] = f"{template.get('title', 'Issue')} {n}"
        elif kind == "projects":
            item["name"] = f"project-{n}"
            item["path"] = f"project-{n}"
            item["path_with_namespace"] = f"group-{n % 97}/project-{n}"
        else:
            item["username"] = f"user{n}"
            item["name"] = f"User {n}"
        items.append(item)
    return items


class Pages:
    """Every page of one collection, encoded once."""

    def __init__(self, items: list[dict[str, Any]]) -> None:
        self.total = len(items)
        self.bodies: dict[tuple[int, int], bytes] = {}
        for per_page in PER_PAGES:
            for start in range(0, max(self.total, 1), per_page):
                chunk = items[start:start + per_page]
                self.bodies[(per_page, start // per_page + 1)] = json.dumps(chunk).encode()

    def body(self, per_page: int, page: int) -> bytes:
        key = (per_page, page)
        if key not in self.bodies:  # an unusual per_page: encode it now (and keep it)
            return b"[]"
        return self.bodies[key]


Answer = tuple[int, list[tuple[str, str]], bytes]


def respond(collections: dict[str, Any], host: str, path: str, query: str) -> Answer:
    totals = True
    prefix = ""
    if path.startswith("/nototals/"):
        totals, prefix, path = False, "/nototals", path[len("/nototals"):]
    name = path.removeprefix("/api/v4/").strip("/")
    pages = collections.get(name)
    if isinstance(pages, bytes):
        return 200, [("Content-Type", "application/json")], pages
    if pages is None:
        print(f"zero_server: 404 for {path}", file=sys.stderr, flush=True)
        return 404, [("Content-Type", "application/json")], b'{"message":"404 Not Found"}'
    params = parse_qsl(query, keep_blank_values=True)
    values = dict(params)
    per_page = min(100, max(1, int(values.get("per_page", "20") or 20)))
    if per_page not in PER_PAGES:
        per_page = 100 if per_page > 20 else 20
    page = max(1, int(values.get("page", "1") or 1))
    total_pages = max(math.ceil(pages.total / per_page), 1)
    has_next = page < total_pages
    rest = [(k, v) for k, v in params if k not in ("page", "per_page")]
    base = f"http://{host}{prefix}/api/v4/{name}"

    def link(number: int, rel: str) -> str:
        return f'<{base}?{urlencode([*rest, ("page", number), ("per_page", per_page)])}>; rel="{rel}"'

    links = []
    if page > 1:
        links.append(link(page - 1, "prev"))
    if has_next:
        links.append(link(page + 1, "next"))
    links.append(link(1, "first"))
    if totals:
        links.append(link(total_pages, "last"))
    headers = [("Content-Type", "application/json"), ("Link", ", ".join(links)),
               ("x-next-page", str(page + 1) if has_next else ""), ("x-page", str(page)),
               ("x-per-page", str(per_page)), ("x-prev-page", str(page - 1) if page > 1 else "")]
    if totals:
        headers += [("x-total", str(pages.total)), ("x-total-pages", str(total_pages))]
    return 200, headers, pages.body(per_page, page) if page <= total_pages else b"[]"


async def serve(collections: dict[str, Any], port: int, latency_ms: float,
                on_ready: Callable[[str], None] | None = None, stop: asyncio.Event | None = None) -> None:
    """Serve until SIGINT or SIGTERM, or until `stop` is set (a server in a thread of another program:
    `on_ready` is told its URL)."""
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                _method, target, _version = lines[0].split(" ", 2)
                fields = {k.strip().lower(): v.strip() for k, _, v in
                          (line.partition(":") for line in lines[1:] if line)}
                if int(fields.get("content-length", "0") or 0):
                    await reader.readexactly(int(fields["content-length"]))
                path, _, query = target.partition("?")
                status, headers, body = respond(collections, fields.get("host", "localhost"), path, query)
                if latency_ms:
                    await asyncio.sleep(latency_ms / 1000)
                out = [f"HTTP/1.1 {status} {'OK' if status == 200 else 'Not Found'}",
                       *(f"{k}: {v}" for k, v in headers), f"Content-Length: {len(body)}", "", ""]
                writer.write("\r\n".join(out).encode("latin-1") + body)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    server = await asyncio.start_server(handle, "127.0.0.1", port, backlog=256)
    actual = server.sockets[0].getsockname()[1]
    if on_ready is not None:
        on_ready(f"http://127.0.0.1:{actual}")
    else:
        print(f"listening on http://127.0.0.1:{actual}", flush=True)
    if stop is None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
    async with server:
        await stop.wait()


def collections_of(issues: int, projects: int, users: int) -> dict[str, Any]:
    """Every page served, encoded now."""
    found = templates()
    counts = {"issues": issues, "projects": projects, "users": users}
    collections: dict[str, Any] = {kind: Pages(make_items(kind, found[kind], count))
                                   for kind, count in counts.items()}
    collections.update({name: json.dumps(found[name]).encode() for name in SINGLES})
    return collections


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=50)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--issues", type=int, default=50_015)
    parser.add_argument("--projects", type=int, default=20_000)
    parser.add_argument("--users", type=int, default=20_000)
    args = parser.parse_args()
    collections = collections_of(args.issues, args.projects, args.users)
    asyncio.run(serve(collections, args.port, args.latency_ms))


if __name__ == "__main__":
    main()
