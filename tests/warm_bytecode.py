"""Before pytest-xdist starts its workers, the run's controller compiles once what every worker would
compile alike (`tests/conftest.py` calls `warm` from `pytest_configure`):

- the test modules and conftests as pytest rewrites their asserts, into pytest's own cached `.pyc` files,
  which a worker reads whatever `PYTHONDONTWRITEBYTECODE` says (pytest only stops *writing* them then);
- labdeck's modules and the tests' helper modules (`compileall`, in a process of its own meanwhile), which
  the workers, and the labdeck processes the end-to-end and command-line tests start, import compiled.

On a fresh clone, or on a machine that sets `PYTHONDONTWRITEBYTECODE` (this project's machines do), each
worker rewrote and compiled the same 470 modules: 9.5 s of CPU to collect, against 3.1 s with them
compiled. The pytest names used are checked in `tests/test_warm_bytecode.py`; should they change,
`warm` does nothing and the workers compile as before.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def rewritten_modules(root: Path = ROOT) -> list[Path]:
    """The files pytest rewrites the asserts of in this project: the test modules and the conftests."""
    tests = root / "tests"
    return sorted(path for path in tests.rglob("*.py") if "bench" not in path.relative_to(tests).parts
                  and (path.name.startswith("test_") or path.name == "conftest.py"))


def write_rewritten(config: pytest.Config, modules: list[Path]) -> int:
    """Write pytest's cached rewrite of each of `modules` that has none up to date; how many it wrote."""
    from _pytest.assertion.rewrite import (
        PYC_TAIL,
        _read_pyc,
        _rewrite_test,
        _write_pyc,
        assertstate_key,
        get_cache_dir,
        try_makedirs,
    )

    state = config.stash[assertstate_key]
    written = 0
    for module in modules:
        cache = get_cache_dir(module)
        pyc = cache / (module.name[:-3] + PYC_TAIL)
        if not try_makedirs(cache) or _read_pyc(module, pyc) is not None:
            continue
        source_stat, code = _rewrite_test(module, config)
        written += _write_pyc(state, code, source_stat, pyc)
    return written


def warm(config: pytest.Config) -> None:
    """Compile for the workers about to start (see the module docstring); nothing when this process is a
    worker or runs the tests itself."""
    if hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None):
        return
    helpers = subprocess.Popen(  # labdeck and the helpers, beside the rewrites
        [sys.executable, "-m", "compileall", "-q", "-x", r"(^|/)(test_[^/]*|conftest)\.py$",
         str(ROOT / "src" / "labdeck"), str(ROOT / "tests")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        write_rewritten(config, rewritten_modules())
    except (ImportError, AttributeError, KeyError):  # pytest changed: the workers compile as before
        pass
    finally:
        helpers.wait()
