"""The code type-checks: mypy, with the configuration in pyproject.toml (strict for `domain` and `api`, the
bodies of untyped functions checked elsewhere, the pydantic plugin), finds nothing in src/labdeck, so a type
slip fails the suite as a style slip does (`test_style.py`). The suite's one mypy run (`mypy_run.py`) also
checks the snippets a test expects refused; only their errors may be reported."""

from __future__ import annotations

import pytest

from mypy_run import MypyRun


@pytest.mark.timeout(600)  # about 20 s from cold on two cores, a few with mypy's cache
def test_mypy_is_clean(mypy_run: MypyRun) -> None:
    assert mypy_run.returncode in (0, 1), mypy_run.stdout[-8000:] + mypy_run.stderr[-2000:]  # 2: mypy failed
    assert mypy_run.errors_outside_snippets() == [], mypy_run.stdout[-8000:]  # each error, then the count
