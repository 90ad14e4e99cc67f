"""One mypy run for the whole suite: the project (`src/labdeck`, with the configuration in pyproject.toml:
strict for `domain` and `api`, the pydantic plugin) and the snippets of `tests/mypy_snippets/` (code a test
expects mypy to refuse), checked together in one process on the checkout's cache (`.mypy_cache`).

`test_types.py` asserts the project is clean, `api/test_binding_types.py` that each snippet line marked
`refused` is refused. Under pytest-xdist the first worker to ask runs mypy and the others wait on a lock
for its answer (a file in the run's shared temporary folder), so a fresh clone pays for one cold run
(about 20 s on two cores), not one per test."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "tests" / "mypy_snippets"


@dataclass(frozen=True)
class MypyRun:
    returncode: int
    stdout: str
    stderr: str

    def errors_in(self, path: Path) -> list[str]:
        """The error lines mypy reported in the file or folder `path`."""
        prefix = str(path.relative_to(ROOT))
        return [line for line in self.stdout.splitlines() if ": error:" in line and line.startswith(prefix)]

    def errors_outside_snippets(self) -> list[str]:
        snippets = str(SNIPPETS.relative_to(ROOT))
        return [line for line in self.stdout.splitlines()
                if ": error:" in line and not line.startswith(snippets)]


def run_mypy() -> MypyRun:
    snippets = sorted(str(path.relative_to(ROOT)) for path in SNIPPETS.glob("*.py"))
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
                           "--cache-dir", str(ROOT / ".mypy_cache"), "src/labdeck", *snippets],
                          cwd=ROOT, capture_output=True, text=True, timeout=580)
    return MypyRun(done.returncode, done.stdout, done.stderr)


def mypy_once(shared: Path) -> MypyRun:
    """The suite's mypy run: made here by the first process of the run (`shared` is the folder every xdist
    worker of this run sees), read back by the others once its lock is released."""
    answer = shared / "mypy-run.json"
    with (shared / "mypy-run.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held while mypy runs: the other workers wait for its answer
        if not answer.exists():
            answer.write_text(json.dumps(run_mypy().__dict__))
    return MypyRun(**json.loads(answer.read_text()))


def shared_folder(basetemp: Path) -> Path:
    """The temporary folder every process of this pytest run shares: the parent of a worker's own."""
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp
