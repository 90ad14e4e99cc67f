"""Every benchmark of `tests/bench/` runs here at a tiny size, end to end, so that none goes stale unseen
(issue 35: `bench_floor.py` waited for ever for a list now read on demand, and `bench_pagination.py
--standalone` no longer found its server). No figure is checked (figures are the benchmarks' business and a
busy machine's): only that each entry point still runs to its end and prints its figures.

Each runs as `python tests/bench/<script> ARGS` would (`runpy`, as `__main__`, with `sys.argv` set), but
in this process, so that labdeck, Textual and the sandbox are imported once for all of them; the tiny
arguments serve the sandbox from a thread of this process where a benchmark has `--in-process`, and shrink
sizes, runs and latencies. A benchmark that measures process start-up (`bench_startup.py`) still starts
its processes, once each. A new benchmark must be added to `TINY` (a test says so)."""

from __future__ import annotations

import os
import runpy
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent / "bench"
NOT_BENCHMARKS = {"bench_common.py", "zero_server.py"}  # shared code; the zero server runs in bench_floor

# script -> (its tiny arguments, a text each run prints with its figures)
TINY: dict[str, tuple[list[str], list[str]]] = {
    "bench_access.py": (
        ["--scale", "demo", "--latency-ms", "1", "--in-process"],
        ["variables review of fleet:", "members review of fleet:", "tokens review of the instance:",
         "first rows", "refresh within the TTL: 0 requests"]),
    "bench_cleanup_policy.py": (
        ["--scale", "demo", "--latency-ms", "1", "--in-process", "--storage-runs", "1", "--cli-runs", "1"],
        ["simulate cold:", "simulate warm:", "labdeck registry policy --json cold:", "group storage fleet",
         "one session, read 1"]),
    "bench_deploy_board.py": (
        ["--scale", "demo", "--latency-ms", "1", "--in-process", "--tui"],
        ["board of fleet:", "first rows", "refresh within the TTL: 0 requests", "TUI (board screen"]),
    "bench_floor.py": (
        ["--latency-ms", "1", "--projects", "250", "--issues", "250", "--users", "250", "--rows", "1000",
         "--rounds", "1", "--presses", "3", "--in-process"],
        ["projects, totals", "python-gitlab get_all", "us per item", "issues view: first rows",
         "all rows (G)", "issues view: resident", "table: page down to next frame"]),
    "bench_issues_load.py": (
        ["--scale", "tiny", "--latency-ms", "1"],
        ["service.fetch_all", "service.load", "issues view                  all rows"]),
    "bench_key_router.py": (
        ["--chars", "5", "--pace", "1", "--runs", "1"],
        ["characters typed into the :projects filter", "router reads of the app's state per key",
         "added latency per key"]),
    "bench_pagination.py": (
        ["--standalone", "--items", "450", "--latency-ms", "1", "--rounds", "1"],
        ["best concurrent", "budget (1.5x ideal)"]),
    "bench_registry_graphql.py": (
        ["--scale", "tiny", "--repository", "worker", "--latency-ms", "1", "--runs", "cold", "--in-process"],
        ["service  graphql       cold", "service  rest fallback cold", "labdeck registry plan  graphql",
         "TUI tags + cleanup preview  rest fallback"]),
    "bench_registry_panel.py": (
        ["--tags", "300", "--repeat", "2"],
        ["keystroke in a pattern, 300 tags", "table rebuilt"]),
    "bench_registry_plan.py": (
        ["--tags", "300", "--repeat", "2"],
        ["cold plan", "recompute (delete pattern edited", "plan: CleanupPlan"]),
    "bench_resource_table.py": (
        ["--rows", "3000", "--datatable-rows", "100"],
        ["load + first paint", "filter keystroke", "page down: to next frame", "stock DataTable"]),
    "bench_sandbox_pages.py": (
        ["--scale", "tiny", "--wait", "0"],
        ["issues (all)", "deployment MRs", "slowest later page"]),
    "bench_scale_lists.py": (
        ["--latency-ms", "1", "--pages", "1", "--quiet", "0.05", "--in-process"],
        ["RTT", ":issues on", ":users on", ":projects on", "RSS after 1 pages down", "server-side filter"]),
    "bench_startup.py": (
        [],
        ["labdeck --version", "heavy modules imported by --version", "TUI start to first paint, --demo",
         "TUI start to first paint, configured instance"]),
    "bench_vs_python_gitlab.py": (
        ["--latency", "1ms", "--scale", "demo", "--settle", "0"],
        ["labdeck api --paginate", "python-gitlab get_all(100)", "faster"]),
}


def test_every_benchmark_runs_in_the_suite() -> None:
    """A benchmark added to tests/bench/ without a tiny run here would go stale unseen."""
    scripts = {path.name for path in BENCH.glob("*.py")} - NOT_BENCHMARKS
    assert scripts == set(TINY)


@pytest.fixture
def as_a_script(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """What a benchmark changes of the process (environment, `sys.path`) is put back after it; it imports
    its sibling modules from tests/bench/ as it does when run as a script."""
    environment = dict(os.environ)
    monkeypatch.setattr(sys, "path", [str(BENCH), *sys.path])
    monkeypatch.setenv("BENCH_RUNS", "1")  # bench_startup.py: one start of each kind
    yield
    os.environ.clear()
    os.environ.update(environment)


@pytest.mark.usefixtures("as_a_script")
@pytest.mark.parametrize("script", sorted(TINY))
def test_benchmark_runs_to_its_end_at_a_tiny_size(script: str, monkeypatch: pytest.MonkeyPatch,
                                                  capfd: pytest.CaptureFixture[str]) -> None:
    arguments, printed = TINY[script]
    monkeypatch.setattr(sys, "argv", [str(BENCH / script), *arguments])
    started = time.perf_counter()
    try:
        runpy.run_path(str(BENCH / script), run_name="__main__")
    except SystemExit as exit_:
        assert exit_.code in (0, None), f"{script} exited with {exit_.code}"
    out = capfd.readouterr().out
    missing = [text for text in printed if text not in out]
    assert not missing, f"{script} did not print {missing} (in {time.perf_counter() - started:.1f} s):\n{out}"
