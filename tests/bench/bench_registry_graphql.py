"""Benchmark: the registry cleanup preview of the large sandbox's biggest repository (15,000 tags,
`acme/platform/api-gateway` `nightly`) at 50 ms latency, through GraphQL and through the REST fallback
(`/api/graphql` answering 404), cold and warm tag-detail cache. Budget: ready in < 5 s.

Prints requests, seconds and CPU seconds (labdeck's process, and the sandbox's, which load disturbs less
than wall time) for each path, three ways:
- the service (`RegistryService.tag_details` + the domain planner: what both front ends run);
- `labdeck registry plan` (a process, start-up included; requests are the service's);
- the TUI (Pilot): from `c` on the repository in `:registry` (the list loaded beforehand), the tags read,
  the cleanup panel open, the bench's rules typed in, until the plan's summary is shown and its rows fill
  the panel's table (and when the panel opened).
Retries (429s of the sandbox's 2,000 requests a minute, and others) are counted: a run that met them
measured the rate limit, not labdeck.

Two sandboxes run as child processes (`labdeck sandbox serve`, one with `--no-graphql`), so the sandbox
does not share this interpreter; each is ready once it has built its issues (a background thread that
would otherwise compete with the first run). The cold REST fallback sends ~15,150 requests, several
minutes each way (the rate limit): `--skip-rest-cold` starts its warm runs from the GraphQL run's cache;
`--skip-rest` leaves the REST fallback out; `--only service,cli,tui` picks the front ends.

Run: .venv/bin/python tests/bench/bench_registry_graphql.py [--skip-rest-cold] [--skip-rest] [--only ...]
     [--scale large] [--repository nightly] [--latency-ms 50] [--runs cold,warm] [--in-process]
(the suite runs it at `--scale tiny --repository worker --runs cold --in-process`,
`tests/test_benchmarks_run.py`)
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from bench_common import Served, load_text, start_sandbox
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.registry import RegistryService
from labdeck.api.settings import ConnectionSettings
from labdeck.api.tag_cache import TagDetailCache
from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules
from labdeck.sandbox.options import SandboxOptions

LATENCY_MS = 50
TOKEN = "glpat-sandbox-root"
PROJECT = "acme/platform/api-gateway"
RULES = CleanupRules(r"nightly-.*", r"nightly-0000.*", keep_n=50, older_than="90d")


def settings(url: str) -> ConnectionSettings:
    return ConnectionSettings(url, token=SecretStr(TOKEN), name="bench")


def wait_ready(url: str, timeout: float = 180.0) -> float:
    """Until the sandbox answers, and has built the large scale's issues (a background thread that would
    otherwise take the CPU from the first run measured: the first `/issues` request waits for it)."""
    started = time.monotonic()
    while True:
        try:
            answer = httpx.get(f"{url}/api/v4/version", headers={"PRIVATE-TOKEN": TOKEN}, timeout=60)
            if answer.status_code == 200:
                httpx.get(f"{url}/api/v4/issues", params={"per_page": 1, "scope": "all"},
                          headers={"PRIVATE-TOKEN": TOKEN}, timeout=120)
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        if time.monotonic() - started > timeout:
            raise RuntimeError("the sandbox did not start")
        time.sleep(0.2)


def repository_id(url: str, name: str = "nightly") -> int:
    """The id of PROJECT's repository `name` (`nightly`: the large scale's 15,000 tags)."""
    response = httpx.get(f"{url}/api/v4/projects/{PROJECT.replace('/', '%2F')}/registry/repositories",
                         headers={"PRIVATE-TOKEN": TOKEN}, timeout=60)
    return next(r["id"] for r in response.json() if r["name"] == name)


def sandbox_cpu(sandbox: Served) -> float:
    """CPU seconds the sandbox's process has used (Linux `/proc`; 0 elsewhere, and for a sandbox served in
    this process, `--in-process`)."""
    process = getattr(sandbox, "process", None)
    if process is None:
        return 0.0
    try:
        fields = Path(f"/proc/{process.pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Counter:
    """Requests and retries seen by a client's request log."""

    def __init__(self) -> None:
        self.requests = 0
        self.retries = 0

    def __call__(self, entry: object) -> None:
        self.requests += 1
        self.retries += getattr(entry, "retries", 0) or 0

    def __str__(self) -> str:
        retried = f" ({self.retries} retried)" if self.retries else ""
        return f"{self.requests:6,} requests{retried}"


async def service_run(url: str, repo_id: int, cache: Path) -> tuple[Counter, float, float, str, int]:
    counted = Counter()
    async with ApiClient(settings(url)) as client:
        client.request_log.subscribe(counted)
        service = RegistryService(client, tag_cache=TagDetailCache(cache))
        started, cpu = time.perf_counter(), time.process_time()
        details = await service.tag_details(PROJECT, repo_id)
        plan = CleanupPlanner([d.to_tag_info() for d in details]).plan(RULES, datetime.now(UTC))
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return counted, seconds, cpu, service.last_source, plan.deleted_count


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def cli_run(url: str, repo_id: int, cache_dir: Path, config: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one `labdeck registry plan --json` process (output to a pipe)."""
    env = {**os.environ, "LABDECK_CACHE_DIR": str(cache_dir), "LABDECK_CONFIG": str(config),
           "BENCH_TOKEN": TOKEN}
    command = [sys.executable, "-m", "labdeck", "registry", "plan", PROJECT, str(repo_id), "--delete",
               RULES.name_regex_delete, "--keep", str(RULES.name_regex_keep), "--keep-n", str(RULES.keep_n),
               "--older-than", str(RULES.older_than), "--json"]
    started, cpu = time.perf_counter(), _children_cpu()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    seconds, cpu = time.perf_counter() - started, _children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace"))
    return seconds, cpu


async def tui_run(url: str, repo_id: int) -> tuple[Counter, float, float, float, str]:
    """As an operator asks for the preview: `:registry` on the project (its repository list loaded before
    the clock starts), `c` on the repository (its tags are read, then the cleanup panel opens by itself),
    the bench's rules typed into the panel. Seconds from `c` until the panel is open, and until the preview
    is ready (the plan's summary shown and its 15,000 rows in the panel's table)."""
    from textual.widgets import Input

    from labdeck.config.schema import Config
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
    from labdeck.tui.screens.registry.registry import RegistryScreen, RegistryTagsScreen

    app = LabdeckApp(Config(path=Path("/nonexistent/bench/config.toml")), settings(url))
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.session is not None
        repositories = RegistryScreen(AreaRequest(scope=PROJECT))
        await app.push_screen(repositories)
        while not any(r.id == repo_id for r in repositories.table.rows):
            await pilot.pause(0.01)
        repositories.table.move_cursor(next(i for i, r in enumerate(repositories.table.rows)
                                            if r.id == repo_id))
        repositories.table.focus()
        await pilot.pause()
        counted = Counter()
        app.session.client.request_log.subscribe(counted)
        started, cpu = time.perf_counter(), time.process_time()
        await pilot.press("c")
        while not isinstance(app.screen, RegistryCleanupScreen) or not app.screen.query("#cleanup-delete"):
            await pilot.pause(0.01)  # pushed, and composed
        panel = app.screen
        opened = time.perf_counter() - started
        typed = {"#cleanup-delete": RULES.name_regex_delete, "#cleanup-keep": RULES.name_regex_keep or "",
                 "#cleanup-keep-n": str(RULES.keep_n or ""), "#cleanup-older-than": RULES.older_than or ""}
        for selector, value in typed.items():
            panel.query_one(selector, Input).value = value
        while panel.plan is None or panel.table.model.row_count != len(panel.tags):
            await pilot.pause(0.01)
        seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
        screen = next(s for s in app.screen_stack if isinstance(s, RegistryTagsScreen))
        title = str(screen.query_one("#registry-tags-title").render())
        return counted, opened, seconds, cpu, f"{title}; plan deletes {panel.plan.deleted_count:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skip-rest-cold", action="store_true")
    parser.add_argument("--skip-rest", action="store_true")
    parser.add_argument("--only", default="service,cli,tui", help="front ends: service, cli, tui")
    parser.add_argument("--scale", default="large", choices=("tiny", "demo", "large"))
    parser.add_argument("--repository", default="nightly", help=f"the repository of {PROJECT} read")
    parser.add_argument("--latency-ms", type=int, default=LATENCY_MS)
    parser.add_argument("--runs", default="cold,warm", help="the runs of each path and front end")
    parser.add_argument("--in-process", action="store_true", help="serve the sandboxes from this process")
    args = parser.parse_args()
    skip_rest_cold, skip_rest, only = args.skip_rest_cold, args.skip_rest, args.only.split(",")
    print(f"registry preview of {PROJECT} {args.repository} ({args.scale} sandbox) at {args.latency_ms} ms "
          f"latency (one run each; {load_text()} at the start)")
    print("  (labdeck cpu: this process or the CLI process; sandbox cpu: its process during the run)")
    sandboxes: dict[str, Served] = {}
    paths = (("graphql", True),) if skip_rest else (("graphql", True), ("rest fallback", False))
    try:
        for name, graphql in paths:
            sandboxes[name] = start_sandbox(SandboxOptions(scale=args.scale, latency_ms=args.latency_ms,
                                                           graphql=graphql), in_process=args.in_process)
        for name, sandbox in sandboxes.items():
            print(f"  sandbox ({name}) ready in {wait_ready(sandbox.base_url):.1f} s")
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            graphql_cache = root / "none"
            runs = [(name, sandbox, run) for name, sandbox in sandboxes.items()
                    for run in args.runs.split(",")]

            def cache_for(name: str, run: str, url: str, folder: Path) -> Path | None:
                """The run's tag-detail cache file (its folder made); None when the run is left out (the
                cold REST run with --skip-rest-cold: its cache starts as the GraphQL run's, same tags)."""
                target = TagDetailCache.for_instance(url, folder).path
                assert target is not None
                target.parent.mkdir(parents=True, exist_ok=True)
                if run == "cold" and skip_rest_cold and not name.startswith("graphql"):
                    target.write_bytes(graphql_cache.read_bytes())
                    return None
                return target

            def cpus(cpu: float, sandbox: Served, before: float) -> str:
                return f"labdeck cpu {cpu:5.2f} s  sandbox cpu {sandbox_cpu(sandbox) - before:5.2f} s"

            def service(name: str, sandbox: Served, run: str, cache: Path, _folder: Path) -> str:
                url = sandbox.base_url
                repo_id, before = repository_id(url, args.repository), sandbox_cpu(sandbox)
                count, seconds, cpu, source, deleted = asyncio.run(service_run(url, repo_id, cache))
                return (f"  service  {name:13} {run}: {count}  {seconds:6.2f} s  {cpus(cpu, sandbox, before)}"
                        f"  ({source}; plan deletes {deleted:,})")

            def cli(name: str, sandbox: Served, run: str, _cache: Path, folder: Path) -> str:
                url = sandbox.base_url
                config = root / f"{name}.toml"
                config.write_text(f'[instances.bench]\nurl = "{url}"\ntoken_env = "BENCH_TOKEN"\n', "utf-8")
                repo_id, before = repository_id(url, args.repository), sandbox_cpu(sandbox)
                seconds, cpu = cli_run(url, repo_id, folder, config)
                return (f"  labdeck registry plan  {name:13} {run}: {seconds:6.2f} s  "
                        f"{cpus(cpu, sandbox, before)}  (process start-up included)")

            def tui(name: str, sandbox: Served, run: str, _cache: Path, folder: Path) -> str:
                os.environ["LABDECK_CACHE_DIR"] = str(folder)
                repo_id, before = repository_id(sandbox.base_url, args.repository), sandbox_cpu(sandbox)
                count, opened, seconds, cpu, title = asyncio.run(tui_run(sandbox.base_url, repo_id))
                return (f"  TUI tags + cleanup preview  {name:13} {run}: {count}  {seconds:6.2f} s  "
                        f"(panel open at {opened:.2f} s)  {cpus(cpu, sandbox, before)}  ({title})")

            front_ends = {"service": service, "cli": cli, "tui": tui}
            for front_end in [f for f in front_ends if f in only]:
                for name, sandbox, run in runs:
                    folder = root / f"{front_end}-{name.replace(' ', '-')}"
                    cache = cache_for(name, run, sandbox.base_url, folder)
                    if cache is None:
                        print(f"  {front_end}  {name:13} cold: skipped (--skip-rest-cold)")
                        continue
                    print(front_ends[front_end](name, sandbox, run, cache, folder))
                    if name == "graphql":
                        graphql_cache = cache
    finally:
        for sandbox in sandboxes.values():
            sandbox.stop()


if __name__ == "__main__":
    main()
