"""Benchmark: the group deployments board of the large sandbox's `fleet` (500 projects, subgroups
included) at 50 ms latency (issue 26). Budgets: first rows < 1 s; complete within 1.5x the latency floor
`ceil(requests / concurrency) x latency`; a refresh within the cache's TTL costs 0 requests.

Prints, for the service (`DeployBoardService.board`, what the TUI's board runs): requests, the time to the
first project's rows, the time to the whole board against the floor, CPU seconds of this process and of
the sandbox's; then the same board again within the TTL (requests, seconds); with `--tui`, the board
screen in a headless `LabdeckApp` (Pilot, 160x50): from `:deployments fleet` until its first rows are in
the table and until the board is complete.

The sandbox runs as a child process (`labdeck sandbox serve --scale large --latency 50ms`) so it does not
share this interpreter; it is ready once it has built its issues (a background thread that would otherwise
take the CPU from the run measured).

Retries (429s of the sandbox's 2,000 requests a minute per token, and others) are counted: a run that met
them measured the rate limit; the TUI run signs in as alice, whose window is her own.

Run: PYTHONPATH=src .venv/bin/python tests/bench/bench_deploy_board.py [--latency-ms 50] [--tui]
     [--scale large] [--in-process]
(the suite runs it at `--scale demo --in-process --tui`, `tests/test_benchmarks_run.py`)
"""

from __future__ import annotations

import argparse
import asyncio
import math
import sys
import time
from pathlib import Path

import httpx
from pydantic import SecretStr

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_common import Served, load_text, start_sandbox  # noqa: E402
from bench_registry_graphql import Counter, sandbox_cpu, wait_ready  # noqa: E402

from labdeck.api.client import ApiClient  # noqa: E402
from labdeck.api.deploy_board import DeployBoardService  # noqa: E402
from labdeck.api.settings import ConnectionSettings  # noqa: E402
from labdeck.sandbox.options import SandboxOptions  # noqa: E402

TOKEN = "glpat-sandbox-root"
TUI_TOKEN = "glpat-sandbox-alice"  # a Developer of fleet: the same board, and a rate-limit window of its own
GROUP = "fleet"


class Counting(httpx.AsyncHTTPTransport):
    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.count += 1
        return await super().handle_async_request(request)


def floor_s(requests: int, concurrency: int, latency_ms: float) -> float:
    return math.ceil(requests / concurrency) * latency_ms / 1000


async def service_run(url: str, latency_ms: float, sandbox: Served) -> None:
    transport = Counting()
    settings = ConnectionSettings(url, token=SecretStr(TOKEN), name="bench")
    client = ApiClient(settings, transport=transport)
    counted = Counter()
    durations: list[float] = []
    client.request_log.subscribe(counted)
    client.request_log.subscribe(lambda entry: durations.append(entry.duration_ms))
    service = DeployBoardService(client)
    first: list[float] = []
    started = time.perf_counter()

    def on_rows(rows: list, done: int, total: int) -> None:
        if rows and not first:
            first.append(time.perf_counter() - started)

    cpu, sandbox_before = time.process_time(), sandbox_cpu(sandbox)
    read = await service.board(GROUP, on_rows=on_rows)
    total = time.perf_counter() - started
    cpu, sandbox_used = time.process_time() - cpu, sandbox_cpu(sandbox) - sandbox_before
    floor = max(floor_s(transport.count, settings.concurrency, latency_ms), 1e-3)
    print(f"board of {GROUP}: {read.projects} projects, {len(read.board.rows)} rows, "
          f"{len(read.board.without_environments)} without environments, {len(read.unreadable)} unreadable")
    durations.sort()
    print(f"{counted}; requests {transport.count}, concurrency {settings.concurrency}, "
          f"latency {latency_ms:g} ms: floor {floor:.2f} s; request durations seen by the client: median "
          f"{durations[len(durations) // 2]:.0f} ms, p90 {durations[len(durations) * 9 // 10]:.0f} ms")
    print(f"first rows {first[0]:.3f} s (budget < 1 s); complete {total:.2f} s = {total / floor:.2f}x the "
          f"floor (budget <= 1.5x); CPU: labdeck {cpu:.2f} s, sandbox {sandbox_used:.2f} s; {load_text()}")
    before = transport.count
    started = time.perf_counter()
    again = await service.board(GROUP)
    took = time.perf_counter() - started
    print(f"refresh within the TTL: {transport.count - before} requests, {took:.3f} s, "
          f"{len(again.board.rows)} rows")
    await client.aclose()


async def tui_run(url: str) -> None:
    """The board screen in a headless app (160x50), pushed once the session is ready: seconds until its
    table has rows, and until the board is complete. Its own client, so its cache starts cold."""
    from labdeck.config.schema import Config
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.screens.deployments.board import DeployBoardScreen

    settings = ConnectionSettings(url, token=SecretStr(TUI_TOKEN), name="bench")
    app = LabdeckApp(Config(path=Path("/nonexistent/bench/config.toml")), settings)
    async with app.run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        assert app.session is not None
        counted = Counter()
        app.session.client.request_log.subscribe(counted)
        board = DeployBoardScreen(GROUP)
        started = time.perf_counter()
        await app.push_screen(board)
        while not board.is_mounted or not board.table.rows:
            await pilot.pause(0.005)
        first = time.perf_counter() - started
        while board.read is None:
            await pilot.pause(0.01)
        await pilot.pause()
        complete = time.perf_counter() - started
        print(f"TUI (board screen, 160x50): first rows in the table {first:.3f} s, "
              f"complete {complete:.2f} s, {len(board.table.rows)} rows;{counted}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=50)
    parser.add_argument("--tui", action="store_true")
    parser.add_argument("--scale", default="large", choices=("demo", "large"))
    parser.add_argument("--in-process", action="store_true", help="serve the sandbox from this process")
    args = parser.parse_args()
    sandbox = start_sandbox(SandboxOptions(scale=args.scale, latency_ms=int(args.latency_ms)),
                            in_process=args.in_process)
    try:
        print(f"sandbox ready in {wait_ready(sandbox.base_url):.1f} s")
        asyncio.run(service_run(sandbox.base_url, args.latency_ms, sandbox))
        if args.tui:
            asyncio.run(tui_run(sandbox.base_url))
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
