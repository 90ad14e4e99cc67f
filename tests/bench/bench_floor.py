"""Benchmark of the client against the latency floor, in one run (issue 16; run on demand, not by pytest):

    .venv/bin/python tests/bench/bench_floor.py [--latency-ms 50] [--projects 20000] [--issues 50015]
                                                [--users 10000] [--rows 100000] [--rounds 5] [--no-gitlab]
                                                [--presses 200] [--in-process]

(the suite runs it tiny, in one process: `tests/test_benchmarks_run.py`)

Starts `zero_server.py` (pages encoded up front, GitLab's headers, `--latency-ms` per request) in its own
process and prints:

1. `labdeck api --paginate projects` (compact output to a file, in this process) against the floor
   `ceil(pages / 8) x latency`, with totals and without (`/nototals`), and python-gitlab's
   `gl.projects.list(get_all=True, per_page=100)` beside it;
2. client CPU per item, per type (issues, projects, users): the service calls the screens use, from
   response bytes to models, through `httpx.MockTransport` (no network, no latency), CPU time / items;
3. the issues view (`:issues` in a headless `LabdeckApp`) over 50,015 issues: first rows, all rows
   against the floor, resident memory of the whole process (its own child process; `--trace` adds
   tracemalloc's top entries, in another child). The list is read on demand: all rows is after `G`
   (read everything, a task), page after page since no totals are sent, so the floor is printed both
   ways, `ceil(pages / 8) x latency` and `pages x latency`;
4. a ResourceTable of 100,000 rows: resident memory, and page-down times (p50 / p99 / max, 200 presses to
   the next frame and 200 done by hand; `--presses`), with the full garbage collections that happened
   meanwhile.

Figures depend on the machine; quote them with its load.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import math
import os
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "src"))
sys.path.insert(0, str(HERE))

TOKEN = "glpat-bench-0000000000"
OUTPUT = "/tmp/labdeck-bench-floor.json"
ROUNDS = 5  # part 2: rounds per type (`--rounds`)


def rss_mb() -> float:
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def floor_s(pages: int, latency_ms: float, concurrency: int = 8) -> float:
    return math.ceil(pages / concurrency) * latency_ms / 1000


@contextlib.contextmanager
def zero_server(latency_ms: float, issues: int, projects: int, users: int,
                in_process: bool = False) -> Iterator[str]:
    if in_process:
        with zero_server_thread(latency_ms, issues, projects, users) as url:
            yield url
        return
    child = subprocess.Popen([sys.executable, str(HERE / "zero_server.py"), "--latency-ms", f"{latency_ms:g}",
                              "--issues", str(issues), "--projects", str(projects), "--users", str(users)],
                             stdout=subprocess.PIPE, text=True)
    try:
        line = child.stdout.readline() if child.stdout else ""
        yield line.split("listening on ")[1].strip()
    finally:
        os.kill(child.pid, signal.SIGTERM)
        child.wait(15)


@contextlib.contextmanager
def zero_server_thread(latency_ms: float, issues: int, projects: int, users: int) -> Iterator[str]:
    """The zero server in a thread of this process (`--in-process`: the suite's tiny run)."""
    import zero_server as zero

    collections = zero.collections_of(issues, projects, users)
    loop = asyncio.new_event_loop()
    stop = asyncio.Event()
    urls: list[str] = []
    ready = threading.Event()

    def on_ready(url: str) -> None:
        urls.append(url)
        ready.set()

    thread = threading.Thread(target=loop.run_until_complete,
                              args=(zero.serve(collections, 0, latency_ms, on_ready, stop),), daemon=True)
    thread.start()
    try:
        if not ready.wait(60):
            raise RuntimeError("the zero server did not start")
        yield urls[0]
    finally:
        loop.call_soon_threadsafe(stop.set)
        thread.join(15)
        loop.close()


# -- 1. fetch-all ----------------------------------------------------------------------------------------

def labdeck_paginate(base_url: str, path: str, argv: list[str] | None = None) -> tuple[float, float, int]:
    """Wall and CPU seconds of `labdeck api --paginate PATH` with stdout a file; the output's size."""
    from labdeck.cli.api import run_api_command

    os.environ["GITLAB_URL"], os.environ["GITLAB_TOKEN"] = base_url, TOKEN
    saved = sys.stdout
    with open(OUTPUT, "w") as target:
        sys.stdout = target
        try:
            started, cpu = time.perf_counter(), time.process_time()
            status = run_api_command(argv or ["--paginate", f"{path}?per_page=100"])
            sys.stdout.flush()
            wall, used = time.perf_counter() - started, time.process_time() - cpu
        finally:
            sys.stdout = saved
    if status != 0:
        raise SystemExit(f"labdeck api exited {status}")
    return wall, used, os.path.getsize(OUTPUT)


def gitlab_get_all(base_url: str) -> tuple[float, int]:
    import gitlab

    gl = gitlab.Gitlab(base_url, private_token=TOKEN)
    started = time.perf_counter()
    items = gl.projects.list(get_all=True, per_page=100)
    return time.perf_counter() - started, len(items)


def part_fetch_all(base_url: str, args: argparse.Namespace) -> None:
    print(f"\n1. fetch-all: labdeck api --paginate (compact, to a file), latency {args.latency_ms:g} ms, "
          "concurrency 8")
    # The first call pays the imports and the client's set-up (TLS context included) once, as a process
    # start does: measured apart, so that every fetch-all below is measured alike.
    wall, cpu, _size = labdeck_paginate(base_url, "version", ["version"])
    print(f"  first call (imports, client set-up, GET /version)  {wall:6.2f} s  (cpu {cpu:5.2f} s)")
    import labdeck.cli.json_out  # noqa: F401  (imported by --paginate only)
    for label, path, count in (("projects, totals", "projects", args.projects),
                               ("projects, no totals", "projects", args.projects),
                               ("issues, no totals", "issues", args.issues)):
        url = base_url + ("/nototals" if "no totals" in label else "")
        pages = math.ceil(count / 100)
        floor = floor_s(pages, args.latency_ms)
        wall, cpu, size = labdeck_paginate(url, path)
        print(f"  {label:<22} {count:>6,} items {pages:>4} pages  {wall:6.2f} s  floor {floor:5.2f} s  "
              f"ratio {wall / floor:4.2f}x  (cpu {cpu:5.2f} s, {size / 2**20:.0f} MiB out)")
        if label == "projects, totals":
            first_wall = wall
    if not args.no_gitlab:
        wall, count = gitlab_get_all(base_url)
        print(f"  python-gitlab get_all(per_page=100) projects: {wall:6.2f} s ({count:,} items); "
              f"labdeck is {wall / first_wall:.1f}x faster")


# -- 2. CPU per item -------------------------------------------------------------------------------------

def part_cpu(base_url: str, rounds: int = ROUNDS) -> None:
    import httpx
    from pydantic import SecretStr

    from labdeck.api.client import ApiClient
    from labdeck.api.issues import IssuesService
    from labdeck.api.projects import ProjectsService
    from labdeck.api.settings import ConnectionSettings
    from labdeck.api.users import UsersService

    # The bodies come from the zero server once, then are served from memory.
    answers: dict[str, httpx.Response] = {}

    def fetch(url: str) -> httpx.Response:
        if url not in answers:
            got = httpx.get(url, headers={"PRIVATE-TOKEN": TOKEN})
            answers[url] = got
        got = answers[url]
        return httpx.Response(got.status_code, headers=got.headers, content=got.content)

    def handler(request: httpx.Request) -> httpx.Response:
        return fetch(str(request.url))

    async def run(kind: str) -> tuple[int, list[float]]:
        settings = ConnectionSettings(base_url + "/nototals", token=SecretStr(TOKEN))
        async with ApiClient(settings, transport=httpx.MockTransport(handler)) as client:
            async def load() -> int:
                if kind == "issues":
                    return len(await IssuesService(client).fetch_all())
                if kind == "users":
                    return len(await UsersService(client).list_users(refresh=True))
                # the projects screen's listing, read whole (`G`): page after page, no totals here
                window = ProjectsService(client).window(order_by="last_activity_at", max_rows=None)
                return len(await window.read_all())
            await load()  # fills `answers` (real requests), warms up
            times = []
            for _ in range(rounds):
                # The previous round's models are freed and collected before the clock starts: their
                # deallocation is not this round's reading.
                client.cache.clear()
                gc.collect()
                cpu = time.process_time()
                items = await load()
                times.append(time.process_time() - cpu)
            return items, times

    print("\n2. client CPU per item (the service calls the screens use, bytes to models, MockTransport)")
    print(f"  (median and best of {rounds} rounds, each after a full collection)")
    for kind in ("issues", "projects", "users"):
        items, times = asyncio.run(run(kind))
        median, best = statistics.median(times), min(times)
        print(f"  {kind:<9} {median / items * 1e6:6.1f} us per item median, {best / items * 1e6:5.1f} best"
              f"  ({items:,} items, cpu {median:.2f} s)")


# -- 3. issues view --------------------------------------------------------------------------------------

async def view(base_url: str, latency_ms: float, trace: bool) -> None:
    from bench_issues_load import open_issues_view
    from pydantic import SecretStr

    from labdeck.api.settings import ConnectionSettings, Timeouts

    if trace:
        import tracemalloc
        tracemalloc.start(1)
    settings = ConnectionSettings(base_url + "/nototals", token=SecretStr(TOKEN),
                                  timeouts=Timeouts(read=60, deadline=300))
    resident: list[float] = []

    async def measure() -> None:
        resident.append(rss_mb())
        if trace:
            import tracemalloc
            snapshot = tracemalloc.take_snapshot()
            print("  tracemalloc top entries (by line):")
            for stat in snapshot.statistics("lineno")[:12]:
                frame = stat.traceback[0]
                print(f"    {stat.size / 2**20:7.1f} MiB {stat.count:>9,} blocks  "
                      f"{frame.filename.split('site-packages/')[-1].split('src/')[-1]}:{frame.lineno}")

    first, total, rows, cpu = await open_issues_view(settings, measure)
    if not trace:
        pages = math.ceil(rows / 100)
        floor, one_by_one = floor_s(pages, latency_ms), floor_s(pages, latency_ms, concurrency=1)
        print(f"  issues view: first rows {first:5.3f} s, all rows (G) {total:6.2f} s ({rows:,} issues), "
              f"floor {floor:5.2f} s, ratio {total / floor:4.2f}x (page after page: floor "
              f"{one_by_one:5.2f} s, ratio {total / one_by_one:4.2f}x), cpu {cpu:5.2f} s")
        print(f"  issues view: resident {resident[0]:6.0f} MB (whole process, all rows loaded)")


# -- 4. table --------------------------------------------------------------------------------------------

async def table(count: int, presses: int = 200) -> None:
    from bench_resource_table import COLUMNS, BenchApp, TimedTable, cells, make_rows

    before = rss_mb()
    app = BenchApp()
    async with app.run_test(size=(160, 50)) as pilot:
        rows = make_rows(count)
        resource = TimedTable(COLUMNS, rows, cells=cells, row_key=lambda r: r.id)
        del rows
        await app.query_one("#host").mount(resource)
        resource.focus()
        await pilot.pause()
        print(f"  table: resident {rss_mb():6.0f} MB with {count:,} rows (process before the app: "
              f"{before:.0f} MB)")
        import gc

        from bench_resource_table import GcPauses, _render_visible

        pauses = GcPauses()
        gc.callbacks.append(pauses)
        times, syncs, times_cpu, syncs_cpu = [], [], [], []
        for _ in range(presses):
            await pilot.pause()
            before_count = TimedTable.render_count
            start, start_cpu = time.perf_counter(), time.thread_time()
            resource.action_page_down()
            await pilot.pause()
            if TimedTable.render_count == before_count:
                await pilot.pause(0.05)
            times.append((TimedTable.last_render - start) * 1000)
            times_cpu.append((TimedTable.last_render_cpu - start_cpu) * 1000)
            # the same work alone: the key's action and every visible line
            start, start_cpu = time.perf_counter(), time.thread_time()
            resource.action_page_down()
            _render_visible(resource)
            syncs.append((time.perf_counter() - start) * 1000)
            syncs_cpu.append((time.thread_time() - start_cpu) * 1000)
        gc.callbacks.remove(pauses)
        for label, values in (("to next frame", times), ("to next frame, cpu", times_cpu),
                              ("sync (action + visible lines)", syncs), ("sync, cpu", syncs_cpu)):
            print(f"  table: page down {label}: {_percentiles(values)} ({len(values)} presses)")
        print(f"  table: full garbage collections meanwhile (in keypresses or idle time): "
              f"{len(pauses.pauses)}, wall {_percentiles(pauses.pauses)}")
        print(f"  table: the same collections, cpu {_percentiles(pauses.cpu)}")


def _percentiles(values: list[float]) -> str:
    if not values:
        return "none"
    values = sorted(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    return f"p50 {statistics.median(values):5.2f} ms, p99 {p99:5.2f} ms, max {values[-1]:5.2f} ms"


def child(part: str, *extra: str, in_process: bool = False) -> None:
    """A part in a process of its own (its resident memory is its own), or with `in_process` in this one."""
    if in_process:
        main([*extra, "--part", part])
        return
    subprocess.run([sys.executable, __file__, "--part", part, *extra], check=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency-ms", type=float, default=50)
    parser.add_argument("--projects", type=int, default=20_000)
    parser.add_argument("--issues", type=int, default=50_015)
    parser.add_argument("--users", type=int, default=10_000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=ROUNDS, help="part 2: rounds per type")
    parser.add_argument("--presses", type=int, default=200, help="part 4: page downs of each kind")
    parser.add_argument("--no-gitlab", action="store_true", help="skip python-gitlab")
    parser.add_argument("--trace", action="store_true", help="also tracemalloc's top entries of the view")
    parser.add_argument("--only", default="fetch,cpu,view,table",
                        help="comma-separated parts to run (fetch, cpu, view, table)")
    parser.add_argument("--in-process", action="store_true",
                        help="the server and every part in this process (figures of memory then include it)")
    parser.add_argument("--part", choices=("view", "trace", "table"), help=argparse.SUPPRESS)
    parser.add_argument("--url", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.part == "view" or args.part == "trace":
        asyncio.run(view(args.url, args.latency_ms, args.part == "trace"))
        return
    if args.part == "table":
        asyncio.run(table(args.rows, args.presses))
        return
    print(f"bench_floor: python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
          f"load average {os.getloadavg()[0]:.1f}")
    only = set(args.only.split(","))
    with zero_server(args.latency_ms, args.issues, args.projects, args.users, args.in_process) as base_url:
        if "fetch" in only:
            part_fetch_all(base_url, args)
        if "cpu" in only:
            part_cpu(base_url, args.rounds)
        if "view" in only:
            print(f"\n3. issues view, {args.issues:,} issues, latency {args.latency_ms:g} ms, no totals")
            child("view", "--url", base_url, "--latency-ms", f"{args.latency_ms:g}",
                  in_process=args.in_process)
            if args.trace:
                child("trace", "--url", base_url, "--latency-ms", f"{args.latency_ms:g}",
                      in_process=args.in_process)
    if "table" in only:
        print(f"\n4. ResourceTable, {args.rows:,} rows")
        child("table", "--rows", str(args.rows), "--presses", str(args.presses), in_process=args.in_process)


if __name__ == "__main__":
    main()
