"""Benchmark: the access review (issue 36) of the large sandbox's `fleet` (500 projects, subgroups included)
at 50 ms latency, and of an instance with 10,000 access tokens. Budgets: the variables and the members
review each give their first rows in < 1 s and are complete within 1.5x the latency floor
`ceil(requests / concurrency) x latency`; a refresh within the cache's TTL costs 0 requests; the
instance's tokens give their first rows within 1 RTT + 150 ms, with at most the client's row ceiling held.

Prints, for each review (the services `:access` and `labdeck access` run: `VariablesReview`,
`MembersReview`, `AccessTokensService.personal_review`): requests, the time to the first rows, the time
to the whole review against the floor, CPU seconds of this process and of the sandbox's, then the same
review again within the TTL (requests, seconds).

The sandbox runs as a child process (`labdeck sandbox serve --scale large --latency 50ms`) so that it does
not share this interpreter. Each review has a client of its own (a cold cache) and signs in as root.
Retries (429s of the sandbox's 2,000 requests a minute per token) are counted: a run that met them
measured the rate limit, not labdeck.

Run: PYTHONPATH=src .venv/bin/python tests/bench/bench_access.py [--latency-ms 50] [--scale large]
     [--in-process]
(the suite runs it at `--scale demo --latency-ms 1 --in-process`, `tests/test_benchmarks_run.py`)
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from pydantic import SecretStr

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_common import Served, load_text, start_sandbox  # noqa: E402
from bench_deploy_board import Counting, floor_s  # noqa: E402
from bench_registry_graphql import Counter, sandbox_cpu, wait_ready  # noqa: E402

from labdeck.api.access_members import MembersReview  # noqa: E402
from labdeck.api.access_tokens import AccessTokensService  # noqa: E402
from labdeck.api.access_variables import VariablesReview  # noqa: E402
from labdeck.api.client import ApiClient  # noqa: E402
from labdeck.sandbox.options import SandboxOptions  # noqa: E402

TOKEN = "glpat-sandbox-root"
GROUP = "fleet"
Read = Callable[[Callable[[list[Any], int, int], None] | None], Awaitable[int]]
Review = Callable[[ApiClient], Read]  # one service per client, as the session's `Services` keeps it


def _variables(client: ApiClient) -> Read:
    service = VariablesReview(client)
    return lambda on_rows: _count(service.review(GROUP, on_rows=on_rows), "rows")


def _members(client: ApiClient) -> Read:
    service = MembersReview(client)
    return lambda on_rows: _count(service.review(GROUP, on_rows=on_rows), "grants")


def _tokens(client: ApiClient) -> Read:
    service = AccessTokensService(client)
    return lambda on_rows: _count(service.personal_review(on_rows=on_rows), "rows")


async def _count(read: Awaitable[Any], field: str) -> int:
    return len(getattr(await read, field))


async def run(what: str, review: Review, url: str, latency_ms: float, sandbox: Served, *,
              budget_first: str, budget_complete: str) -> None:
    from labdeck.api.settings import ConnectionSettings

    transport = Counting()
    settings = ConnectionSettings(url, token=SecretStr(TOKEN), name="bench")
    client = ApiClient(settings, transport=transport)
    counted = Counter()
    client.request_log.subscribe(counted)
    first: list[float] = []
    started = time.perf_counter()

    def on_rows(rows: list[Any], done: int, total: int) -> None:
        if rows and not first:
            first.append(time.perf_counter() - started)

    read = review(client)
    cpu, sandbox_before = time.process_time(), sandbox_cpu(sandbox)
    rows = await read(on_rows)
    total = time.perf_counter() - started
    cpu, sandbox_used = time.process_time() - cpu, sandbox_cpu(sandbox) - sandbox_before
    floor = max(floor_s(transport.count, settings.concurrency, latency_ms), 1e-3)
    print(f"{what}: {rows} rows; {counted}; requests {transport.count}, concurrency {settings.concurrency}, "
          f"latency {latency_ms:g} ms: floor {floor:.2f} s")
    print(f"  first rows {first[0] if first else float('nan'):.3f} s (budget {budget_first}); complete "
          f"{total:.2f} s = {total / floor:.2f}x the floor ({budget_complete}); CPU: labdeck {cpu:.2f} s, "
          f"sandbox {sandbox_used:.2f} s; {load_text()}")
    before = transport.count
    started = time.perf_counter()
    await read(None)
    took = time.perf_counter() - started
    print(f"  refresh within the TTL: {transport.count - before} requests, {took:.3f} s")
    await client.aclose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--latency-ms", type=float, default=50)
    parser.add_argument("--scale", default="large", choices=("demo", "large"))
    parser.add_argument("--in-process", action="store_true", help="serve the sandbox from this process")
    args = parser.parse_args()
    sandbox = start_sandbox(SandboxOptions(scale=args.scale, latency_ms=int(args.latency_ms)),
                            in_process=args.in_process)
    rtt = f"< 1 RTT + 150 ms = {(args.latency_ms + 150) / 1000:.3f} s"
    try:
        print(f"sandbox ready in {wait_ready(sandbox.base_url):.1f} s")
        # the tokens' budget is their first rows and bounded memory (rows held <= the client's ceiling,
        # `max_list_rows`, 10,000 by default): their whole read has none
        for what, review, first, complete in (
                ("variables review of fleet", _variables, "< 1 s", "budget <= 1.5x"),
                ("members review of fleet", _members, "< 1 s", "budget <= 1.5x"),
                ("tokens review of the instance", _tokens, rtt, "no budget; rows held <= 10,000")):
            asyncio.run(run(what, review, sandbox.base_url, args.latency_ms, sandbox, budget_first=first,
                            budget_complete=complete))
    finally:
        sandbox.stop()


if __name__ == "__main__":
    main()
