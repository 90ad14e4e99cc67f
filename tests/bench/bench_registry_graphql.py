"""Benchmark: the registry cleanup preview of the large sandbox's biggest repository (15,000 tags,
`acme/platform/api-gateway` `nightly`) at 50 ms latency, through GraphQL and through the REST fallback
(`/api/graphql` answering 404), cold and warm tag-detail cache. Budget: ready in < 5 s.

Prints requests and seconds for each path, three ways:
- the service (`RegistryService.tag_details` + the domain planner: what both front ends run);
- `labdeck registry plan` (a process, start-up included; requests are the service's);
- the TUI (Pilot): the tags screen loaded and the cleanup panel open with its summary.

Two sandboxes run as child processes (`labdeck sandbox serve`, one with `--no-graphql`), so the sandbox
does not share this interpreter. The cold REST fallback sends ~15,150 requests: about 100 s each way.

Run: .venv/bin/python tests/bench/bench_registry_graphql.py [--skip-rest-cold]
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.registry import RegistryService
from labdeck.api.settings import ConnectionSettings
from labdeck.api.tag_cache import TagDetailCache
from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import SandboxProcess, start_process

LATENCY_MS = 50
TOKEN = "glpat-sandbox-root"
PROJECT = "acme/platform/api-gateway"
RULES = CleanupRules(r"nightly-.*", r"nightly-0000.*", keep_n=50, older_than="90d")


def settings(url: str) -> ConnectionSettings:
    return ConnectionSettings(url, token=SecretStr(TOKEN), name="bench")


def wait_ready(url: str, timeout: float = 180.0) -> float:
    started = time.monotonic()
    while True:
        try:
            answer = httpx.get(f"{url}/api/v4/version", headers={"PRIVATE-TOKEN": TOKEN}, timeout=60)
            if answer.status_code == 200:
                return time.monotonic() - started
        except httpx.HTTPError:
            pass
        if time.monotonic() - started > timeout:
            raise RuntimeError("the sandbox did not start")
        time.sleep(0.2)


def nightly_id(url: str) -> int:
    response = httpx.get(f"{url}/api/v4/projects/{PROJECT.replace('/', '%2F')}/registry/repositories",
                         headers={"PRIVATE-TOKEN": TOKEN}, timeout=60)
    return next(r["id"] for r in response.json() if r["name"] == "nightly")


async def service_run(url: str, repo_id: int, cache: Path) -> tuple[int, float, str, int]:
    counted = [0]
    async with ApiClient(settings(url)) as client:
        client.request_log.subscribe(lambda _entry: counted.__setitem__(0, counted[0] + 1))
        service = RegistryService(client, tag_cache=TagDetailCache(cache))
        started = time.perf_counter()
        details = await service.tag_details(PROJECT, repo_id)
        plan = CleanupPlanner([d.to_tag_info() for d in details]).plan(RULES, datetime.now(UTC))
        seconds = time.perf_counter() - started
    return counted[0], seconds, service.last_source, plan.deleted_count


def cli_run(url: str, repo_id: int, cache_dir: Path, config: Path) -> float:
    env = {**os.environ, "LABDECK_CACHE_DIR": str(cache_dir), "LABDECK_CONFIG": str(config),
           "BENCH_TOKEN": TOKEN}
    command = [sys.executable, "-m", "labdeck", "registry", "plan", PROJECT, str(repo_id), "--delete",
               RULES.name_regex_delete, "--keep", str(RULES.name_regex_keep), "--keep-n", str(RULES.keep_n),
               "--older-than", str(RULES.older_than), "--json"]
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(done.stderr.decode(errors="replace"))
    return seconds


async def tui_run(url: str, repo_id: int) -> tuple[int, float, str]:
    from labdeck.api.models.registry import RegistryRepository
    from labdeck.config.schema import Config
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
    from labdeck.tui.screens.registry.registry import RegistryTagsScreen

    app = LabdeckApp(Config(path=Path("/nonexistent/bench/config.toml")), settings(url))
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.session is not None
        counted = [0]
        app.session.client.request_log.subscribe(lambda _entry: counted.__setitem__(0, counted[0] + 1))
        repo = RegistryRepository(id=repo_id, name="nightly", path=f"{PROJECT}/nightly", project_id=1)
        started = time.perf_counter()
        screen = RegistryTagsScreen(repo, open_cleanup=True)
        await app.push_screen(screen)
        await pilot.pause()
        await app.workers.wait_for_complete()  # the tag details; then the panel opens by itself
        await pilot.pause()
        assert isinstance(app.screen, RegistryCleanupScreen)
        seconds = time.perf_counter() - started
        title = str(screen.query_one("#registry-tags-title").render())
        return counted[0], seconds, title


def main() -> None:
    skip_rest_cold = "--skip-rest-cold" in sys.argv
    print(f"registry preview of 15,000 tags at {LATENCY_MS} ms latency (shared machine; one run each)")
    sandboxes: dict[str, SandboxProcess] = {}
    try:
        for name, graphql in (("graphql", True), ("rest fallback", False)):
            sandboxes[name] = start_process(SandboxOptions(scale="large", latency_ms=LATENCY_MS,
                                                           graphql=graphql))
        for name, sandbox in sandboxes.items():
            print(f"  sandbox ({name}) ready in {wait_ready(sandbox.base_url):.1f} s")
        with tempfile.TemporaryDirectory() as folder:
            root = Path(folder)
            graphql_cache = root / "none"
            for name, sandbox in sandboxes.items():
                url = sandbox.base_url
                repo_id = nightly_id(url)
                config = root / f"{name}.toml"
                config.write_text(f'[instances.bench]\nurl = "{url}"\ntoken_env = "BENCH_TOKEN"\n', "utf-8")
                cache = root / name.replace(" ", "-") / "cache"
                cache.mkdir(parents=True, exist_ok=True)
                path = TagDetailCache.for_instance(url, cache).path
                assert path is not None
                for run in ("cold", "warm"):
                    if run == "cold" and skip_rest_cold and not name.startswith("graphql"):
                        print(f"  service  {name:13} {run}: skipped (--skip-rest-cold); warm starts from "
                              "the GraphQL run's cache (same seed, same tags)")
                        path.write_bytes(graphql_cache.read_bytes())
                        continue
                    count, seconds, source, deleted = asyncio.run(service_run(url, repo_id, path))
                    print(f"  service  {name:13} {run}: {count:6,} requests  {seconds:6.2f} s  "
                          f"({source}; plan deletes {deleted:,})")
                if name == "graphql":
                    graphql_cache = path
            for name, sandbox in sandboxes.items():
                url = sandbox.base_url
                repo_id = nightly_id(url)
                config = root / f"{name}.toml"
                cache = root / f"cli-{name.replace(' ', '-')}"
                cache.mkdir()
                for run in ("cold", "warm"):
                    if run == "cold" and skip_rest_cold and not name.startswith("graphql"):
                        target = TagDetailCache.for_instance(url, cache).path
                        assert target is not None
                        target.write_bytes(graphql_cache.read_bytes())
                        continue
                    print(f"  labdeck registry plan  {name:13} {run}: "
                          f"{cli_run(url, repo_id, cache, config):6.2f} s (process start-up included)")
            for name, sandbox in sandboxes.items():
                folder_of_tui = root / f"tui-{name.replace(' ', '-')}"
                os.environ["LABDECK_CACHE_DIR"] = str(folder_of_tui)
                repo_id = nightly_id(sandbox.base_url)
                for run in ("cold", "warm"):
                    if run == "cold" and skip_rest_cold and not name.startswith("graphql"):
                        target = TagDetailCache.for_instance(sandbox.base_url, folder_of_tui).path
                        assert target is not None
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(graphql_cache.read_bytes())
                        continue
                    count, seconds, title = asyncio.run(tui_run(sandbox.base_url, repo_id))
                    print(f"  TUI tags + cleanup panel  {name:13} {run}: {count:6,} requests  "
                          f"{seconds:6.2f} s  ({title})")
    finally:
        for sandbox in sandboxes.values():
            sandbox.stop()


if __name__ == "__main__":
    main()
