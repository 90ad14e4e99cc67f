"""Benchmark of `ApiClient.fetch_all` against the pagination budget in docs/design.md (run on demand):

    .venv/bin/python tests/bench/bench_pagination.py [--standalone | --subprocess] [--latency-ms 50]

Fetches every page of `/projects` (per_page=100, 200 pages) concurrently (`mode="auto"`: speculative page
windows, since above 10,000 records the totals are omitted) and by following `rel="next"` one page at a time,
and prints both times, their ratio and the budget `ceil(pages / concurrency) x latency x 1.5`.

By default it runs against the sandbox (`scale="large"`, root's token) served in this process (its route
code then competes with the client for the interpreter lock); `--subprocess` serves it from its own process;
`--standalone` serves its own tiny Starlette app with the same shape (no totals above 10,000, `Link`
headers) and latency (`--items`, default 20,000).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # `loopback` (tests/loopback.py)

from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.pagination import format_link_header
from labdeck.api.settings import ConnectionSettings, Timeouts

ROOT_TOKEN = "glpat-sandbox-root"


def standalone_app(items: int, latency_ms: float) -> object:
    """A minimal GitLab-like `/projects` list with offset pagination and simulated latency."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    records = [{"id": i, "name": f"project-{i}", "path_with_namespace": f"group/project-{i}"}
               for i in range(1, items + 1)]

    async def projects(request: Request) -> JSONResponse:
        await asyncio.sleep(latency_ms / 1000)
        page = max(1, int(request.query_params.get("page", "1")))
        per_page = min(100, max(1, int(request.query_params.get("per_page", "20"))))
        start = (page - 1) * per_page
        body = records[start:start + per_page]
        base = str(request.url.replace(query=""))
        headers = {"x-page": str(page), "x-per-page": str(per_page)}
        links = {}
        if start + per_page < items:
            headers["x-next-page"] = str(page + 1)
            links["next"] = f"{base}?page={page + 1}&per_page={per_page}"
        if items <= 10_000:
            headers["x-total"] = str(items)
            headers["x-total-pages"] = str(math.ceil(items / per_page))
        if links:
            headers["link"] = format_link_header(links)
        return JSONResponse(body, headers=headers)

    return Starlette(routes=[Route("/api/v4/projects", projects)])


@contextmanager
def serve_standalone(items: int, latency_ms: float) -> Iterator[str]:
    from loopback import serve

    with serve(standalone_app(items, latency_ms)) as base:
        yield base


@contextmanager
def serve_sandbox_process(latency_ms: float) -> Iterator[str]:
    """`labdeck sandbox serve --scale large` in a child process (stopped by its pid at the end), so that
    server and client do not share one interpreter lock."""
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    child = subprocess.Popen([sys.executable, "-m", "labdeck", "sandbox", "serve", "--scale", "large",
                              "--port", "0", "--latency", f"{latency_ms:g}ms"], stdout=subprocess.PIPE,
                             text=True, env=env)
    try:
        line = child.stdout.readline() if child.stdout else ""
        yield line.split(" listening on ")[1].split()[0]
    finally:
        os.kill(child.pid, signal.SIGINT)
        child.wait(15)


@contextmanager
def serve_sandbox(latency_ms: float) -> Iterator[str]:
    from labdeck.sandbox.options import SandboxOptions
    from labdeck.sandbox.serve import start_background

    running = start_background(SandboxOptions(scale="large", latency_ms=latency_ms))
    try:
        yield running.base_url
    finally:
        running.stop()


async def timed(label: str, run: Callable[[], object]) -> tuple[float, int]:
    started = time.perf_counter()
    items = await run()  # type: ignore[misc]
    elapsed = time.perf_counter() - started
    print(f"  {label:<28} {elapsed:7.3f} s  ({len(items)} items)")
    return elapsed, len(items)


async def bench(base_url: str, latency_ms: float, concurrency: int, per_page: int, rounds: int) -> None:
    settings = ConnectionSettings(base_url, token=SecretStr(ROOT_TOKEN), concurrency=concurrency,
                                  timeouts=Timeouts(read=60, deadline=300))
    async with ApiClient(settings) as client:
        await client.get_json("/projects", {"per_page": 1})  # warm up the connection
        best_conc = best_seq = math.inf
        count = 0
        for _ in range(rounds):
            conc, count = await timed("concurrent (auto)", lambda: client.fetch_all(
                "/projects", per_page=per_page, mode="auto"))
            seq, seq_count = await timed("sequential rel=next", lambda: client.fetch_all(
                "/projects", per_page=per_page, mode="sequential"))
            assert seq_count == count, "both modes must see the same items"
            best_conc, best_seq = min(best_conc, conc), min(best_seq, seq)
        pages = math.ceil(count / per_page)
        ideal = math.ceil(pages / concurrency) * latency_ms / 1000
        budget = ideal * 1.5
        print(f"pages {pages}, concurrency {concurrency}, latency {latency_ms:g} ms")
        print(f"  best concurrent            {best_conc:7.3f} s")
        print(f"  best sequential            {best_seq:7.3f} s")
        print(f"  speed-up                   {best_seq / best_conc:7.1f}x")
        print(f"  per page (concurrent)      {best_conc / pages * 1000:7.2f} ms")
        print(f"  ideal ceil(p/c) x latency  {ideal:7.3f} s")
        print(f"  budget (1.5x ideal)        {budget:7.3f} s  -> {'OK' if best_conc <= budget else 'OVER'}")
        if ideal > 0:
            print(f"  concurrent / ideal         {best_conc / ideal:7.2f}x")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--standalone", action="store_true",
                        help="serve a tiny built-in app, not the sandbox")
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--subprocess", action="store_true",
                        help="serve the sandbox from its own process (not sharing the interpreter lock)")
    parser.add_argument("--items", type=int, default=20_000, help="(standalone) number of projects")
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--per-page", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    if args.standalone:
        server, label = serve_standalone(args.items, args.latency_ms), "standalone"
    elif args.subprocess:
        server, label = serve_sandbox_process(args.latency_ms), "sandbox (scale=large, own process)"
    else:
        server, label = serve_sandbox(args.latency_ms), "sandbox (scale=large, in-process)"
    print("server:", label)
    with server as base_url:
        asyncio.run(bench(base_url, args.latency_ms, args.concurrency, args.per_page, args.rounds))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
