"""Benchmark: loading the 50,000 issues of the `--scale large` sandbox (run on demand):

    .venv/bin/python tests/bench/bench_issues_load.py [--latency-ms 50] [--no-view] [--subprocess]
                                                     [--scale large]

(`--scale tiny` or `demo`: the same steps over the few issues of that scale; the suite runs it so.)

The sandbox runs as a real HTTP server (`start_background`, 50 ms latency per request; with
`--subprocess`, `labdeck sandbox serve` in its own process, so that server and client do not share one
interpreter lock) and root lists `GET /issues?scope=all` through `IssuesService`:

- `service.fetch_all`: every page, concurrently; time to all rows;
- `service.load`: page 1 alone (time to first rows), then every page concurrently (time to all rows);
- the issues view (`:issues` in a headless `LabdeckApp`): time until the first rows are in the table and
  until all of them are.

Each line also shows the CPU time this process spent (client, and the server too when it is in-process).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.issues import IssuesService
from labdeck.api.settings import ConnectionSettings, Timeouts

ROOT_TOKEN = "glpat-sandbox-root"


def settings_for(base_url: str) -> ConnectionSettings:
    return ConnectionSettings(base_url, token=SecretStr(ROOT_TOKEN), timeouts=Timeouts(read=60, deadline=300))


async def bench_service(base_url: str) -> None:
    async with ApiClient(settings_for(base_url)) as client:
        service = IssuesService(client)
        await client.get_json("/issues", {"scope": "all", "per_page": 1})  # warm up (and the server's index)
        started, cpu = time.perf_counter(), time.process_time()
        issues = await service.fetch_all()
        print(f"  service.fetch_all            all rows   {time.perf_counter() - started:7.3f} s"
              f"  ({len(issues):,} issues; cpu {time.process_time() - cpu:.1f} s)")
        client.cache.clear()
        first_at: list[float] = []
        started, cpu = time.perf_counter(), time.process_time()
        issues = await service.load(on_first_page=lambda page: first_at.append(time.perf_counter()))
        done = time.perf_counter()
        print(f"  service.load                 first rows {first_at[0] - started:7.3f} s")
        print(f"  service.load                 all rows   {done - started:7.3f} s  ({len(issues):,} issues; "
              f"cpu {time.process_time() - cpu:.1f} s)")


async def open_issues_view(settings: ConnectionSettings,
                           then: Any = None) -> tuple[float, float, int, float]:
    """`:issues` in a headless `LabdeckApp`: seconds to the first rows and to all rows, the row count and
    the CPU seconds; `then()` (async) runs while the app is still up, every row loaded.

    The list is read on demand (`tui/list_feed.py`): a listing whose total fits the row ceiling is read
    whole by itself; any other (50,015 issues, or no totals as GitLab above 10,000) stays partial until the
    operator reads everything (`G`, confirmed: `ListFeed.read_everything`, a task). All rows is when the
    list holds every issue of the listing, either way."""
    from labdeck.config.files import Config
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.screens.issues.issues import IssuesScreen

    app = LabdeckApp(Config(path=Path("/nonexistent/labdeck-bench/config.toml")), settings)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.app.workers.wait_for_complete()
        screen = IssuesScreen(AreaRequest())
        started, cpu = time.perf_counter(), time.process_time()
        await app.push_screen(screen)
        first = None
        while True:  # the first page, then the list's first settling (a small list is read whole now)
            await asyncio.sleep(0.005)
            if first is None and screen.is_mounted and len(screen.table.rows):
                first = time.perf_counter() - started
            window = screen.feed.window if first is not None else None
            if window is not None and not screen.table.loading_more:
                break
        await pilot.app.workers.wait_for_complete()
        if screen.feed.partial:  # what `G` starts once confirmed: every page read as a task
            job = await app.jobs.wait(screen.feed.read_everything())
            if job.error:
                raise RuntimeError(f"reading every issue failed: {job.error}")
        rows = len(screen.table.rows)
        total, used = time.perf_counter() - started, time.process_time() - cpu
        await pilot.pause()
        if then is not None:
            await then()
    return first or 0.0, total, rows, used


async def bench_view(base_url: str) -> None:
    first, total, rows, cpu = await open_issues_view(settings_for(base_url))
    print(f"  issues view                  first rows {first:7.3f} s")
    print(f"  issues view                  all rows   {total:7.3f} s  ({rows:,} issues; cpu {cpu:.1f} s)")


@contextlib.contextmanager
def in_process(latency_ms: float, scale: str = "large") -> Iterator[str]:
    from labdeck.sandbox.options import SandboxOptions
    from labdeck.sandbox.serve import start_background

    started = time.perf_counter()
    running = start_background(SandboxOptions(scale=scale, latency_ms=latency_ms))
    print(f"sandbox (in-process) scale={scale}, latency {latency_ms:g} ms, started in "
          f"{time.perf_counter() - started:.2f} s at {running.base_url}")
    try:
        yield running.base_url
    finally:
        running.stop()


@contextlib.contextmanager
def own_process(latency_ms: float, scale: str = "large") -> Iterator[str]:
    """`labdeck sandbox serve --scale large` in a child process (stopped by its pid at the end)."""
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    child = subprocess.Popen([sys.executable, "-m", "labdeck", "sandbox", "serve", "--scale", scale,
                              "--port", "0", "--latency", f"{latency_ms:g}ms"], stdout=subprocess.PIPE,
                             text=True, env=env)
    try:
        line = child.stdout.readline() if child.stdout else ""
        url = line.split(" listening on ")[1].split()[0]
        print(f"sandbox (own process) scale={scale}, latency {latency_ms:g} ms, ready after "
              f"{time.perf_counter() - started:.2f} s: {line.strip()}")
        yield url
    finally:
        os.kill(child.pid, signal.SIGINT)
        child.wait(15)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--no-view", action="store_true", help="skip the TUI measurement")
    parser.add_argument("--subprocess", action="store_true", help="serve the sandbox from its own process")
    parser.add_argument("--scale", default="large", choices=("tiny", "demo", "large"))
    args = parser.parse_args(argv)
    serve = own_process if args.subprocess else in_process
    with serve(args.latency_ms, args.scale) as base_url:
        asyncio.run(bench_service(base_url))
        if not args.no_view:
            asyncio.run(bench_view(base_url))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
