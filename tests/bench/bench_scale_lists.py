"""Benchmark: lists on an instance of a million issues and a million users (issue 25; run on demand):

    .venv/bin/python tests/bench/bench_scale_lists.py [--latency-ms 50] [--pages 50,500] [--quiet 0.5]
                                                      [--in-process]

`labdeck sandbox serve --scale huge --latency 50ms` runs in its own process (so the resident memory measured
is labdeck's alone), and a headless `LabdeckApp` opens `:issues` (scope all: no totals above 10,000),
`:users` and `:projects` (keyset by id) against it. For each view:

- first rows: from pushing the screen to the first rows in the table, against the budget of 1 RTT + 150 ms
  (the RTT is measured first, with a one-row request);
- requests before scrolling: listing requests sent once the view has settled without a key pressed (<= 3);
- resident memory of the whole process (VmRSS) after 50 and after 500 page-downs (< 250 MB, no growth);
- a filter typed into the partial list (`/`, text, enter): sent to the server as `search`, time to its rows
  (< 1 RTT + 150 ms).

Figures are printed side by side; nothing is asserted (benchmarks are not tests). `--in-process` serves the
sandbox and opens every view in this one process (the suite's tiny run, `tests/test_benchmarks_run.py`: the
memory figures then are not one view's).
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.settings import ConnectionSettings, Timeouts

ROOT_TOKEN = "glpat-sandbox-root"


def settings_for(base_url: str, max_rows: int | None = None) -> ConnectionSettings:
    extra = {} if max_rows is None else {"max_list_rows": max_rows}
    return ConnectionSettings(base_url, token=SecretStr(ROOT_TOKEN), timeouts=Timeouts(read=60, deadline=300),
                              **extra)


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


@contextlib.contextmanager
def huge_sandbox(latency_ms: float, in_process: bool = False) -> Iterator[str]:
    """`labdeck sandbox serve --scale huge` in a child process (stopped by its pid at the end), or in a
    thread of this process."""
    if in_process:
        from labdeck.sandbox.options import SandboxOptions
        from labdeck.sandbox.serve import start_background

        running = start_background(SandboxOptions(scale="huge", latency_ms=latency_ms), timeout=120)
        try:
            yield running.base_url
        finally:
            running.stop()
        return
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2] / "src")}
    child = subprocess.Popen([sys.executable, "-m", "labdeck", "sandbox", "serve", "--scale", "huge",
                              "--port", "0", "--latency", f"{latency_ms:g}ms"], stdout=subprocess.PIPE,
                             text=True, env=env)
    try:
        line = child.stdout.readline() if child.stdout else ""
        print(line.strip())
        yield line.split(" listening on ")[1].split()[0]
    finally:
        os.kill(child.pid, signal.SIGINT)
        child.wait(15)


async def measure_rtt(base_url: str) -> float:
    async with ApiClient(settings_for(base_url)) as client:
        await client.get_json("/issues", {"scope": "all", "per_page": 1})  # connection and warm-up
        times = []
        for _ in range(5):
            started = time.perf_counter()
            await client.get_json("/issues", {"scope": "all", "per_page": 1})
            times.append(time.perf_counter() - started)
    return sorted(times)[len(times) // 2]


async def until(condition: Callable[[], bool], limit: float = 30.0) -> float:
    """Seconds until `condition` holds (checked every 2 ms)."""
    started = time.perf_counter()
    while not condition():
        if time.perf_counter() - started > limit:
            raise TimeoutError("condition not met")
        await asyncio.sleep(0.002)
    return time.perf_counter() - started


def listing_requests(app: Any, path: str) -> int:
    return sum(1 for e in app.session.client.request_log.entries if e.path.split("?")[0].endswith(path))


async def bench_view(base_url: str, kind: str, pages: list[int], rtt: float, search: str,
                     max_rows: int | None = None, quiet: float = 0.5) -> dict[str, str]:
    """One view's figures (`quiet`: the seconds without a request that say the home view is done, and
    twice that with no key pressed after the first rows)."""
    from labdeck.config.files import Config
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.screens.issues.issues import IssuesScreen
    from labdeck.tui.screens.projects.projects import ProjectsScreen
    from labdeck.tui.screens.users.users import UsersScreen
    from labdeck.tui.widgets.resource_view import ResourceView, footer_text

    budget = rtt + 0.150
    out: dict[str, str] = {}
    config = Config(path=Path("/nonexistent/labdeck-bench/config.toml"))
    app = LabdeckApp(config, settings_for(base_url, max_rows))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.app.workers.wait_for_complete()
        log = app.session.client.request_log
        seen = -1
        while seen != len(log):  # the home screen's own reads (the overview) are done before we start
            seen = len(log)
            await asyncio.sleep(quiet)
        path = f"/{kind}"
        before = listing_requests(app, path)
        started = time.perf_counter()  # the screen is built (it may ask for page 1 then) and pushed
        screens = {"issues": lambda: IssuesScreen(AreaRequest()), "projects": ProjectsScreen,
                   "users": lambda: UsersScreen(AreaRequest())}
        screen: Any = screens[kind]()
        await app.push_screen(screen)
        await until(lambda: screen.is_mounted and bool(screen.table.model.row_count))
        first = time.perf_counter() - started
        verdict = "ok" if first < budget else "OVER"
        out["first rows"] = f"{first * 1000:6.0f} ms (budget {budget * 1000:.0f}: {verdict})"
        await asyncio.sleep(2 * quiet)  # no key pressed: whatever is read now is read ahead
        await pilot.app.workers.wait_for_complete()
        sent = listing_requests(app, path) - before
        out["requests before scrolling"] = f"{sent:6d}    (budget 3: {'ok' if sent <= 3 else 'OVER'})"
        view_id = f"#{kind}-view"
        view = screen.query_one(view_id, ResourceView)
        out["footer"] = footer_text(view.table).plain
        # a filter typed into the partial list (`/`, the text, enter): sent to the server
        await pilot.press("slash")
        view.filter_input.value = search
        started = time.perf_counter()
        await view.filter_input.action_submit()  # enter: the text goes to the server at once
        await until(lambda: screen.feed.search == search and bool(view.table.model.row_count)
                    and not view.table.loading_more)
        took = time.perf_counter() - started
        out["server-side filter"] = (f"{took * 1000:6.0f} ms (budget {budget * 1000:.0f}: "
                                     f"{'ok' if took < budget else 'OVER'}; {footer_text(view.table).plain})")
        await pilot.press("escape")  # the filter cleared: the whole listing again, from the server
        await until(lambda: screen.feed.search == "" and bool(view.table.model.row_count)
                    and not view.table.loading_more)
        await pilot.app.workers.wait_for_complete()
        view.table.focus()
        done = 0
        for target in pages:
            while done < target:
                await pilot.press("pagedown")
                done += 1
                if view.table.loading_more or view.table.model.want_more(view.table.load_more_threshold):
                    await pilot.app.workers.wait_for_complete()
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            rss = rss_mb()
            verdict = "ok" if rss < 250 else "OVER"
            row = view.table.cursor_index + screen.feed.start
            out[f"RSS after {target} pages down"] = (f"{rss:6.0f} MB (budget 250: {verdict}; "
                                                    f"{view.table.model.row_count:,} rows in the table, "
                                                    f"cursor at row {row:,})")
        requests = listing_requests(app, path) - before
        out["listing requests in all"] = f"{requests:6d}"
    return out


SEARCHES = {"issues": "parser", "users": "ada", "projects": "runner"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=50.0)
    parser.add_argument("--pages", default="50,500", help="page-downs after which memory is measured")
    parser.add_argument("--max-rows", type=int, help="the instance's max_list_rows (default: labdeck's)")
    parser.add_argument("--quiet", type=float, default=0.5,
                        help="seconds without a request before a view opens (twice that after it opens)")
    parser.add_argument("--in-process", action="store_true", help="the sandbox and the views in this process")
    parser.add_argument("--url", help=argparse.SUPPRESS)  # one view against a running sandbox (a child)
    parser.add_argument("--kind", choices=tuple(SEARCHES), help=argparse.SUPPRESS)
    parser.add_argument("--rtt", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args()
    pages = [int(p) for p in args.pages.split(",")]
    if args.url:  # a child: one view, its figures as `name\tvalue` lines
        figures = asyncio.run(bench_view(args.url, args.kind, pages, args.rtt, SEARCHES[args.kind],
                                         args.max_rows, args.quiet))
        for name, value in figures.items():
            print(f"{name}\t{value}")
        return 0
    with huge_sandbox(args.latency_ms, args.in_process) as base_url:
        rtt = asyncio.run(measure_rtt(base_url))
        print(f"RTT (median of 5 one-row requests): {rtt * 1000:.0f} ms; load average "
              f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
        for kind in SEARCHES:  # each view in a process of its own: the resident memory is that view's
            if args.in_process:
                print(f"\n:{kind} on 1,000,000 {kind} ({args.latency_ms:g} ms latency), in this process")
                figures = asyncio.run(bench_view(base_url, kind, pages, rtt, SEARCHES[kind], args.max_rows,
                                                 args.quiet))
                for name, value in figures.items():
                    print(f"  {name:<26}  {value}")
                continue
            child = subprocess.run([sys.executable, __file__, "--url", base_url, "--kind", kind, "--rtt",
                                    str(rtt), "--pages", args.pages, "--quiet", str(args.quiet),
                                    *(["--max-rows", str(args.max_rows)] if args.max_rows else [])],
                                   capture_output=True, text=True,
                                   check=False)
            print(f"\n:{kind} on 1,000,000 {kind} ({args.latency_ms:g} ms latency)")
            if child.returncode:
                print(child.stderr[-2000:])
                continue
            rows = [line.split("\t", 1) for line in child.stdout.splitlines() if "\t" in line]
            width = max(len(name) for name, _ in rows)
            for name, value in rows:
                print(f"  {name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
