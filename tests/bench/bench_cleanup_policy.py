"""Benchmark: the cleanup-policy simulation of a project with 20 repositories and about 15,000 tags at 50 ms
latency (the large sandbox's `acme/infra/terraform`), cold (empty tag-detail cache) and warm (the cache of
the cold run), through `CleanupPolicyService.simulate` (tag details by GraphQL with the REST fallback and the
tag cache) and through `labdeck registry policy --json` (a process, start-up included). Budget: < 5 s cold,
< 1 s warm. Then the group storage view of the large sandbox's 500-project group `fleet` (`--group`; its
projects with `statistics=true`, `--storage-runs` times with a new client each, then as many reads on one
session's client, the view opened then `r`, connections kept open) against its latency floor:
page 1, then the other pages of 100 at once (`x-total-pages`), 8 in flight: (1 + ceil((pages - 1) / 8)) RTT.
Budget 1.5x. Before them the process signs in (`GET /user`), as the TUI has before any view opens; the
first run still meets the sandbox's first encoding of those records. The load average is printed with
the figures (the machine may be shared).

The sandbox runs as a child process (`labdeck sandbox serve --scale large --latency 50ms`), ready once it
has built its issues. Prints requests (and retries: a run that met the sandbox's rate limit measured that,
not labdeck), seconds, CPU seconds of labdeck's process and of the sandbox's.

Run: .venv/bin/python tests/bench/bench_cleanup_policy.py [--runs N] [--storage-only] [--storage-runs N]
     [--scale large] [--latency-ms 50] [--cli-runs 2] [--in-process]
(the suite runs it at `--scale demo --cli-runs 1 --in-process`, `tests/test_benchmarks_run.py`)
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from bench_common import Served, load_text, start_sandbox
from bench_registry_graphql import TOKEN, Counter, sandbox_cpu, settings, wait_ready

from labdeck.api.cleanup_policy import CleanupPolicyService
from labdeck.api.client import ApiClient
from labdeck.api.instance import InstanceService
from labdeck.api.registry import RegistryService
from labdeck.api.tag_cache import TagDetailCache
from labdeck.sandbox.options import SandboxOptions

LATENCY_MS = 50
PROJECT = "acme/infra/terraform"
GROUP = "fleet"
CONCURRENCY = 8


async def simulate(url: str, cache: Path) -> tuple[Counter, float, float, int, int, int]:
    counted = Counter()
    async with ApiClient(settings(url)) as client:
        client.request_log.subscribe(counted)
        registry = RegistryService(client, tag_cache=TagDetailCache(cache))
        started, cpu = time.perf_counter(), time.process_time()
        sim = await CleanupPolicyService(client, registry).simulate(PROJECT)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    tags = sum(len(r.plan.tags) for r in sim.repositories if r.plan is not None)
    return counted, seconds, cpu, len(sim.repositories), tags, sim.deleted_count


async def storage(url: str, group: str) -> tuple[Counter, float, float, int]:
    counted = Counter()
    async with ApiClient(settings(url)) as client:
        client.request_log.subscribe(counted)
        started, cpu = time.perf_counter(), time.process_time()
        rows = await CleanupPolicyService(client).group_storage(group)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return counted, seconds, cpu, len(rows)


async def session_storage(url: str, group: str, runs: int) -> list[tuple[Counter, float, float, int]]:
    """The view opened, then `r` pressed `runs - 1` times, on one session's client (signed in first):
    its connections stay open from one read to the next, as in the TUI."""
    out = []
    async with ApiClient(settings(url)) as client:
        await InstanceService(client).current_user()
        service = CleanupPolicyService(client)
        for _ in range(runs):
            counted = Counter()
            stop = client.request_log.subscribe(counted)
            started, cpu = time.perf_counter(), time.process_time()
            rows = await service.group_storage(group, refresh=True)
            out.append((counted, time.perf_counter() - started, time.process_time() - cpu, len(rows)))
            stop()
    return out


async def sign_in(url: str) -> None:
    """What the TUI has done before any view opens (`GET /user`): this process has made a request."""
    async with ApiClient(settings(url)) as client:
        await InstanceService(client).current_user()


def project_count(url: str, group: str) -> int:
    """How many projects the group and its subgroups hold (`x-total` of a one-item page)."""
    answer = httpx.head(f"{url}/api/v4/groups/{group}/projects",
                        params={"include_subgroups": "true", "with_shared": "false", "per_page": 1},
                        headers={"PRIVATE-TOKEN": TOKEN}, timeout=60)
    return int(answer.headers.get("x-total", "0") or 0)


def cli_run(url: str, cache_dir: Path, config: Path) -> float:
    env = {**os.environ, "LABDECK_CACHE_DIR": str(cache_dir), "LABDECK_CONFIG": str(config),
           "BENCH_TOKEN": TOKEN}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "labdeck", "registry", "policy", PROJECT, "--json"],
                          env=env, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace"))
    return time.perf_counter() - started


def simulations(sandbox: Served, url: str, runs: int, cli_runs: int = 2) -> None:
    """The project simulation cold and warm, through the service and through the CLI."""
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        cache = TagDetailCache.for_instance(url, root / "service").path
        assert cache is not None
        cache.parent.mkdir(parents=True, exist_ok=True)
        for run in ["cold"] + ["warm"] * runs:
            before = sandbox_cpu(sandbox)
            count, seconds, cpu, repos, tags, deleted = asyncio.run(simulate(url, cache))
            budget = 5.0 if run == "cold" else 1.0
            print(f"  simulate {run}: {repos} repositories, {tags:,} tags: {count}  {seconds:6.2f} s "
                  f"(budget {budget:.0f} s)  labdeck cpu {cpu:5.2f} s  sandbox cpu "
                  f"{sandbox_cpu(sandbox) - before:5.2f} s  (deletes {deleted:,})  {load_text()}")
        config = root / "bench.toml"
        config.write_text(f'[instances.bench]\nurl = "{url}"\ntoken_env = "BENCH_TOKEN"\n', "utf-8")
        for run in ("cold", "warm")[:cli_runs]:
            seconds = cli_run(url, root / "cli", config)
            print(f"  labdeck registry policy --json {run}: {seconds:6.2f} s (process start-up included)  "
                  f"{load_text()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=1, help="warm runs after the cold one")
    parser.add_argument("--group", default=GROUP, help="the group of the storage view")
    parser.add_argument("--storage-runs", type=int, default=3, help="runs of the group storage view")
    parser.add_argument("--storage-only", action="store_true", help="the group storage view alone")
    parser.add_argument("--scale", default="large", choices=("demo", "large"))
    parser.add_argument("--latency-ms", type=int, default=LATENCY_MS)
    parser.add_argument("--cli-runs", type=int, default=2, help="CLI processes: cold, then warm")
    parser.add_argument("--in-process", action="store_true", help="serve the sandbox from this process")
    args = parser.parse_args()
    sandbox = start_sandbox(SandboxOptions(scale=args.scale, latency_ms=args.latency_ms),
                            in_process=args.in_process)
    try:
        url = sandbox.base_url
        print(f"sandbox ({args.scale}) ready in {wait_ready(url):.1f} s ({args.latency_ms} ms latency)")
        if not args.storage_only:
            simulations(sandbox, url, args.runs, args.cli_runs)
        projects = project_count(url, args.group)
        pages = max(math.ceil(projects / 100), 1)
        floor = max((1 + math.ceil((pages - 1) / CONCURRENCY)) * args.latency_ms / 1000, 1e-3)
        asyncio.run(sign_in(url))
        for run in range(1, args.storage_runs + 1):
            before = sandbox_cpu(sandbox)
            count, seconds, cpu, rows = asyncio.run(storage(url, args.group))
            load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"  group storage {args.group} run {run} ({rows} projects, {pages} pages): {count}  "
                  f"{seconds:6.3f} s  floor {floor:.2f} s  ratio {seconds / floor:.2f} (budget 1.5)  labdeck "
                  f"cpu {cpu:5.3f} s  sandbox cpu {sandbox_cpu(sandbox) - before:5.3f} s  load {load}")
        before = sandbox_cpu(sandbox)
        for run, (count, seconds, cpu, rows) in enumerate(
                asyncio.run(session_storage(url, args.group, args.storage_runs)), 1):
            load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
            print(f"  group storage {args.group} one session, read {run} ({rows} projects): {count}  "
                  f"{seconds:6.3f} s  floor {floor:.2f} s  ratio {seconds / floor:.2f} (budget 1.5)  labdeck "
                  f"cpu {cpu:5.3f} s  load {load}")
        print(f"  (sandbox cpu for the session's reads: {sandbox_cpu(sandbox) - before:5.3f} s)")
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
