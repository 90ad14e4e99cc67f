"""Benchmark: the sandbox's time per listing page of 100 at `--scale large` (run on demand):

    .venv/bin/python tests/bench/bench_sandbox_pages.py [--wait 3]

Builds the large sandbox in this process (ASGI, no network, no latency), waits `--wait` seconds (what a
user takes to reach a listing), then times pages 1, 2, 3, 50, 100 and 200 of `/issues?scope=all`,
`/projects`, `/users` and `/groups` as root: wall milliseconds per request, the first one included.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

import httpx

from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions


async def main(wait: float) -> None:
    started = time.perf_counter()
    app = create_app(SandboxOptions(scale="large"))
    print(f"large sandbox built in {time.perf_counter() - started:.1f} s; waiting {wait:g} s")
    await asyncio.sleep(wait)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://sandbox/api/v4",
                                 headers={"PRIVATE-TOKEN": "glpat-sandbox-root"}) as client:
        for path, params in (("/issues", {"scope": "all"}), ("/projects", {}), ("/users", {}),
                             ("/groups", {})):
            times = []
            for page in (1, 2, 3, 50, 100, 200):
                start = time.perf_counter()
                await client.get(path, params={**params, "per_page": 100, "page": page})
                times.append(f"{(time.perf_counter() - start) * 1000:.1f}")
            print(f"  {path:<10} ms per page (1, 2, 3, 50, 100, 200): {', '.join(times)}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wait", type=float, default=3.0)
    asyncio.run(main(parser.parse_args().wait))
