"""What the benchmarks share: the sandbox they read, served by a child process (what every figure is
measured with: its CPU is its own) or, with `--in-process`, by a thread of the benchmark's own process (the
suite's tiny runs, `tests/test_benchmarks_run.py`: no second interpreter to start), and the machine's load
average, printed beside the figures (the machine may be shared)."""

from __future__ import annotations

import os
from typing import Protocol

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import start_background, start_process


class Served(Protocol):
    """A running sandbox: its URL, and how to stop it (`SandboxProcess` or `RunningSandbox`)."""

    base_url: str

    def stop(self, timeout: float = 5.0) -> None: ...


def start_sandbox(options: SandboxOptions, *, in_process: bool = False) -> Served:
    """The sandbox of `options`, in a child process (returns at once; wait until it is ready) or in a thread
    of this process (returns once it serves)."""
    return start_background(options, timeout=120) if in_process else start_process(options)


def load_text() -> str:
    """The load average over 1, 5 and 15 minutes, and the CPUs it is shared by."""
    return f"load {', '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cpus"
