"""The code type-checks: mypy, with the configuration in pyproject.toml (strict for `domain` and `api`, the
bodies of untyped functions checked elsewhere, the pydantic plugin), finds nothing in src/labdeck, so a type
slip fails the suite as a style slip does (`test_style.py`)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.timeout(600)  # about 20 s from cold on two cores, a few with mypy's cache
def test_mypy_is_clean() -> None:
    # the files and every setting come from [tool.mypy]; the cache stays in the checkout (.mypy_cache)
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml"],
                          cwd=ROOT, capture_output=True, text=True, timeout=580)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-2000:]  # each error, then the count
