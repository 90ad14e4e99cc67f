"""Module docstrings say what a module is for and what it may touch; a file one names exists. A docstring
that maps where other things live goes stale when they move (issue 35: `registry/registry.py` named a
cleanup module that is not beside it), so a file named in a docstring must be found beside the module, in
a folder above it inside `labdeck`, or from the repository's root (`tests/...`)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "labdeck"
FILE_NAME = re.compile(r"(?<![\w/.])([\w/]+\.py)\b")


def _missing_files(module: Path) -> list[str]:
    doc = ast.get_docstring(ast.parse(module.read_text(encoding="utf-8"))) or ""
    bases = [module.parent, *[p for p in module.parents if p == SRC or SRC in p.parents], ROOT]
    return [name for name in FILE_NAME.findall(doc) if not any((base / name).is_file() for base in bases)]


def test_every_file_a_module_docstring_names_exists() -> None:
    stale = {str(p.relative_to(SRC)): missing
             for p in sorted(SRC.rglob("*.py")) if (missing := _missing_files(p))}
    assert stale == {}


def test_a_file_that_is_not_beside_the_module_is_missing(tmp_path: Path) -> None:
    module = SRC / "tui" / "screens" / "registry" / "x.py"  # (never written: only its folders matter)
    assert (SRC / "domain" / "registry_cleanup.py").is_file()
    bases = [module.parent, *[p for p in module.parents if p == SRC or SRC in p.parents], ROOT]
    assert not any((base / "registry_cleanup.py").is_file() for base in bases)
    assert any((base / "domain/registry_cleanup.py").is_file() for base in bases)
