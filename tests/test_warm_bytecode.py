"""The controller of an xdist run compiles once what each worker would (`tests/warm_bytecode.py`): pytest's
rewrite of each test module, in the cache a worker reads, and only what is not up to date."""

from __future__ import annotations

from pathlib import Path

import pytest

from warm_bytecode import ROOT, rewritten_modules, write_rewritten


def test_the_rewritten_modules_are_the_test_modules_and_the_conftests() -> None:
    modules = rewritten_modules()
    assert ROOT / "tests" / "conftest.py" in modules and Path(__file__) in modules
    assert ROOT / "tests" / "tui" / "snapshot_apps.py" not in modules  # a helper: imported, not rewritten
    assert not [module for module in modules if "bench" in module.parts]  # not collected (--ignore)


def test_a_rewrite_is_written_where_a_worker_reads_it_and_only_once(tmp_path: Path,
                                                                      pytestconfig: pytest.Config) -> None:
    from _pytest.assertion.rewrite import PYC_TAIL, _read_pyc, get_cache_dir

    module = tmp_path / "test_sample.py"
    module.write_text("def test_it():\n    assert 1 + 1 == 3\n")
    assert write_rewritten(pytestconfig, [module]) == 1
    pyc = get_cache_dir(module) / ("test_sample" + PYC_TAIL)
    code = _read_pyc(module, pyc)
    assert code is not None
    function = next(const for const in code.co_consts if hasattr(const, "co_varnames"))
    assert any(name.startswith("@py_assert") for name in function.co_varnames)  # asserts rewritten
    assert write_rewritten(pytestconfig, [module]) == 0  # up to date: not written again
