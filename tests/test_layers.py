"""The layer rules of the design: domain imports nothing of ours, api/domain/sandbox never import Textual,
domain never imports httpx, sandbox never imports the client."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "labdeck"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _layer_imports(layer: str) -> dict[str, set[str]]:
    return {str(p.relative_to(SRC)): _imports(p) for p in (SRC / layer).rglob("*.py")}


def _offenders(layer: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for module, names in _layer_imports(layer).items():
        for name in names:
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                bad.append(f"{module} imports {name}")
    return bad


@pytest.mark.parametrize("layer", ["domain", "api", "sandbox"])
def test_no_textual_outside_tui(layer: str) -> None:
    assert _offenders(layer, ("textual", "rich")) == []


def test_domain_is_pure() -> None:
    forbidden = ("httpx", "labdeck.api", "labdeck.tui", "labdeck.sandbox", "labdeck.config",
                 "starlette", "uvicorn", "sqlite3", "socket")
    assert _offenders("domain", forbidden) == []


def test_api_does_not_import_tui_or_sandbox() -> None:
    assert _offenders("api", ("labdeck.tui", "labdeck.sandbox")) == []


def test_sandbox_imports_only_domain() -> None:
    assert _offenders("sandbox", ("labdeck.api", "labdeck.tui", "labdeck.config", "httpx")) == []


def test_checker_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("from textual.app import App\nimport httpx\n")
    assert {"textual.app", "httpx"} <= _imports(bad)
