"""Startup benchmark (run on demand, not by pytest): `.venv/bin/python tests/bench/bench_startup.py`
(with bytecode caching on: `env -u PYTHONDONTWRITEBYTECODE ...` where the environment sets it).

1. `labdeck --version` in a fresh interpreter (budget 150 ms): must stay lazy (no Textual, httpx, pydantic).
2. TUI start to first painted screen (budget 800 ms), headless, in a fresh interpreter each run:
   - `--demo`: includes starting the embedded sandbox (demo scale) on loopback;
   - against an already running sandbox (an instance from a config file): the TUI's own cost.
   "Painted" is Textual's ready point: the first screen composed and rendered, when `auto_pilot` starts.
Figures are medians (and minimum) of several runs, wall clock measured by the parent from spawn to signal.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", "")}

CHILD = r"""
import argparse, sys
from labdeck.tui.launch import build_app

options = argparse.Namespace(demo=sys.argv[1] == "demo", instance=None, read_only=False, config=sys.argv[2])
app, sandbox = build_app(options)

async def painted(pilot):
    print("PAINTED", type(pilot.app.screen).__name__, flush=True)
    pilot.app.exit()

try:
    app.run(headless=True, size=(120, 40), auto_pilot=painted)
finally:
    if sandbox is not None:
        sandbox.stop()
"""


def _time_until(argv: list[str], marker: str | None) -> float:
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV,
                            cwd=ROOT)
    assert proc.stdout is not None
    if marker is None:
        _, err = proc.communicate(timeout=60)
        elapsed = time.perf_counter() - start
        if proc.returncode != 0:
            raise RuntimeError(err)
        return elapsed
    for line in proc.stdout:
        if line.startswith(marker):
            elapsed = time.perf_counter() - start
            break
    else:
        raise RuntimeError(proc.stderr.read() if proc.stderr else "no output")
    proc.communicate(timeout=60)
    return elapsed


def _report(label: str, samples: list[float], budget_ms: float) -> None:
    median, best = statistics.median(samples) * 1000, min(samples) * 1000
    verdict = "ok" if median <= budget_ms else "OVER BUDGET"
    print(f"{label:<48} median {median:7.1f} ms   min {best:7.1f} ms   budget {budget_ms:.0f} ms   {verdict}")
    if os.environ.get("BENCH_VERBOSE"):
        print("    samples:", " ".join(f"{s * 1000:.0f}" for s in samples))


def _lazy_imports() -> list[str]:
    code = ("import sys; from labdeck.cli.main import main\n"
            "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
            "print('HEAVY:', *[m for m in ('textual', 'httpx', 'pydantic', 'rich') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=ENV, check=True)
    line = next(line for line in out.stdout.splitlines() if line.startswith("HEAVY:"))
    return line.split()[1:]


def main() -> None:
    runs = int(os.environ.get("BENCH_RUNS", "7"))
    python = sys.executable
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {runs} runs each")
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):
        # Without cached bytecode every start compiles ~75 modules (~0.25 s more than a user's second start).
        print("warning: PYTHONDONTWRITEBYTECODE is set, so every start compiles from source; "
              "run with `env -u PYTHONDONTWRITEBYTECODE` for a user's figures")
    _report("labdeck --version (python -m labdeck)",
            [_time_until([python, "-m", "labdeck", "--version"], None) for _ in range(runs)], 150)
    _report("bare interpreter (python -c pass), for scale",
            [_time_until([python, "-c", "pass"], None) for _ in range(runs)], 150)
    heavy = _lazy_imports()
    print(f"{'heavy modules imported by --version':<48} {', '.join(heavy) or 'none'}")

    with tempfile.TemporaryDirectory() as folder:
        config = Path(folder) / "config.toml"
        demo = [_time_until([python, "-c", CHILD, "demo", str(config)], "PAINTED") for _ in range(runs)]
        _report("TUI start to first paint, --demo (sandbox incl.)", demo, 800)

        sys.path.insert(0, str(ROOT / "src"))
        from labdeck.sandbox.options import SandboxOptions
        from labdeck.sandbox.serve import start_background

        sandbox = start_background(SandboxOptions(scale="demo"))
        try:
            config.write_text(f'default_instance = "s"\n[instances.s]\nurl = "{sandbox.base_url}"\n'
                              'token_env = "LABDECK_BENCH_TOKEN"\n')
            ENV["LABDECK_BENCH_TOKEN"] = "glpat-sandbox-root"
            real = [_time_until([python, "-c", CHILD, "config", str(config)], "PAINTED") for _ in range(runs)]
            _report("TUI start to first paint, configured instance", real, 800)
        finally:
            sandbox.stop()


if __name__ == "__main__":
    main()
