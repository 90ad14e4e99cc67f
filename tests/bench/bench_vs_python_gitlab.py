"""labdeck against python-gitlab on the large sandbox at 50 ms latency (issue 16 goal 2: at least 5x faster
than `get_all` with `per_page=100`); run on demand, not by pytest:

    .venv/bin/python tests/bench/bench_vs_python_gitlab.py [--latency 50ms] [--path projects] [--scale large]
                                                          [--settle 3]

Starts `labdeck sandbox serve --scale large` in its own process, then, one after the other: `labdeck api
--paginate <path>` (a process, compact output to a file) and python-gitlab's `list(get_all=True,
per_page=100)` (in this process), and prints both times, the item counts and the ratio. The sandbox's rate
limit (2,000 requests a minute) is far above what either sends.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOKEN = "glpat-sandbox-root"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", default="50ms")
    parser.add_argument("--path", default="projects", choices=("projects", "issues", "users"))
    parser.add_argument("--port", type=int, default=0, help="the sandbox's port (0: any free one)")
    parser.add_argument("--scale", default="large", choices=("demo", "large"))
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds for the sandbox to build the large scale's issues in the background")
    args = parser.parse_args()
    labdeck = str(Path(sys.executable).with_name("labdeck"))
    server = subprocess.Popen([labdeck, "sandbox", "serve", "--scale", args.scale, "--latency", args.latency,
                               "--port", str(args.port)],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = server.stdout.readline() if server.stdout else ""
        base = line.split(" listening on ")[1].split()[0]
        import httpx

        for _ in range(200):
            try:
                httpx.get(f"{base}/api/v4/version", headers={"PRIVATE-TOKEN": TOKEN}, timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        time.sleep(args.settle)  # the large scale's issues are built in the background
        env = {**os.environ, "GITLAB_URL": base, "GITLAB_TOKEN": TOKEN}  # the `env` instance
        out = Path("/tmp/labdeck-bench-vs-python-gitlab.json")
        start = time.perf_counter()
        with out.open("wb") as handle:
            subprocess.run([labdeck, "api", "--instance", "env", "--paginate", args.path], stdout=handle,
                           env=env, check=True)
        ours = time.perf_counter() - start
        import orjson

        count = len(orjson.loads(out.read_bytes()))
        import gitlab

        gl = gitlab.Gitlab(base, private_token=TOKEN)
        start = time.perf_counter()
        manager = {"projects": gl.projects, "issues": gl.issues, "users": gl.users}[args.path]
        theirs_count = len(manager.list(get_all=True, per_page=100))
        theirs = time.perf_counter() - start
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
        print(f"{args.scale} sandbox, {args.latency} latency, /{args.path} (load {load})")
        print(f"  labdeck api --paginate         {count:7,} items  {ours:6.2f} s (process start-up included)")
        print(f"  python-gitlab get_all(100)     {theirs_count:7,} items  {theirs:6.2f} s")
        print(f"  labdeck is {theirs / ours:.1f}x faster")
    finally:
        server.terminate()
        server.wait(10)


if __name__ == "__main__":
    main()
