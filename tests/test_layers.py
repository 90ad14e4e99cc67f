"""The layer rules of the design: domain imports nothing of ours, api/domain/sandbox never import Textual,
domain never imports httpx, sandbox never imports the client, config sits below the TUI, nothing but the entry
point imports the headless commands, and no import cycle joins modules of different folders."""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "labdeck"


def _tree(path: Path, *, typing: bool = False) -> ast.Module:
    """The module's syntax tree without its `if TYPE_CHECKING:` blocks (they never run), unless `typing`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    if typing:
        return tree
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            node.body = []
    return tree


def _imports(path: Path, *, typing: bool = False) -> set[str]:
    """Every absolute import of the module, at its top or inside a function (`from a import b` gives `a`
    and `a.b`, since `b` may be a module); with `typing`, those of its `TYPE_CHECKING` blocks too."""
    names: set[str] = set()
    for node in ast.walk(_tree(path, typing=typing)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _layer_imports(layer: str) -> dict[str, set[str]]:
    return {str(p.relative_to(SRC)): _imports(p) for p in (SRC / layer).rglob("*.py")}


def _offenders(layer: str, forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for module, names in _layer_imports(layer).items():
        for name in names:
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                bad.append(f"{module} imports {name}")
    return sorted(set(bad))


@pytest.mark.parametrize("layer", ["domain", "api", "sandbox", "config"])
def test_no_textual_outside_tui(layer: str) -> None:
    assert _offenders(layer, ("textual", "rich")) == []


def test_domain_is_pure() -> None:
    forbidden = ("httpx", "labdeck.api", "labdeck.tui", "labdeck.sandbox", "labdeck.config", "labdeck.cli",
                 "starlette", "uvicorn", "sqlite3", "socket")
    assert _offenders("domain", forbidden) == []


def test_api_does_not_import_tui_sandbox_config_or_cli() -> None:
    assert _offenders("api", ("labdeck.tui", "labdeck.sandbox", "labdeck.config", "labdeck.cli")) == []


def test_sandbox_imports_only_domain() -> None:
    forbidden = ("labdeck.api", "labdeck.tui", "labdeck.config", "labdeck.cli", "httpx")
    assert _offenders("sandbox", forbidden) == []


def test_config_sits_below_the_tui() -> None:
    assert _offenders("config", ("labdeck.tui", "labdeck.sandbox", "labdeck.cli")) == []


@pytest.mark.parametrize("layer", ["domain", "api", "sandbox", "config", "tui"])
def test_only_the_entry_point_imports_the_commands(layer: str) -> None:
    assert _offenders(layer, ("labdeck.cli",)) == []


def _graph() -> dict[str, set[str]]:
    paths = {_module_name(p): p for p in SRC.rglob("*.py")}
    return {name: (_imports(path) & paths.keys()) - {name} for name, path in paths.items()}


def _cycles(graph: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in graph[node]:
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(component)

    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for node in graph:
            if node not in index:
                visit(node)
    finally:
        sys.setrecursionlimit(limit)
    return found


def _folders(component: set[str]) -> set[str]:
    return {name.rsplit(".", 1)[0] for name in component}


def test_no_import_cycle_between_folders() -> None:
    crossing = [sorted(c) for c in _cycles(_graph()) if len(_folders(c)) > 1]
    assert crossing == []


def test_cycle_finder_sees_a_cycle_across_folders() -> None:
    graph = {"pkg.a.x": {"pkg.b.y"}, "pkg.b.y": {"pkg.a.x"}, "pkg.a.z": {"pkg.a.x"}}
    assert _cycles(graph) == [{"pkg.a.x", "pkg.b.y"}]
    assert _folders({"pkg.a.x", "pkg.b.y"}) == {"pkg.a", "pkg.b"}


def test_checker_catches_a_violation(tmp_path: Path) -> None:
    bad = tmp_path / "x.py"
    bad.write_text("from typing import TYPE_CHECKING\nfrom textual.app import App\nimport httpx\n"
                   "if TYPE_CHECKING:\n    import labdeck.tui.app\n")
    found = _imports(bad)
    assert {"textual.app", "httpx"} <= found
    assert "labdeck.tui.app" not in found


def test_nothing_outside_the_groups_area_imports_from_it() -> None:
    """The groups area keeps only what only groups have: the kit (forms, tab specs, panes of any owner) is
    `tui/kit/`, and no module of `src` outside `tui/screens/groups/` imports from that folder, not even for
    the type checker (the area registry names its screen lazily, as text: `tui/areas.py`)."""
    groups = "labdeck.tui.screens.groups"
    inside = SRC / "tui" / "screens" / "groups"
    bad = sorted(f"{path.relative_to(SRC)} imports {name}" for path in SRC.rglob("*.py")
                 if inside not in path.parents
                 for name in _imports(path, typing=True) if name == groups or name.startswith(groups + "."))
    assert bad == []


def _session_lookups(path: Path) -> list[str]:
    """`getattr` calls that look up a widget's app or a session or services by name, and functions that hand
    out a service or `None` (`def registry_service(...) -> RegistryService | None`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr":
            target = ast.unparse(node.args[0]) if node.args else ""
            name = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else ""
            if target.endswith(".app") or name in ("session", "services"):
                found.append(f"{path.relative_to(SRC)}:{node.lineno} {ast.unparse(node)}")
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns is not None:
            returns = ast.unparse(node.returns)
            if re.fullmatch(r"\w*Services? \| None", returns):
                found.append(f"{path.relative_to(SRC)}:{node.lineno} def {node.name} -> {returns}")
    return found


def test_screens_reach_services_only_through_the_context() -> None:
    """Issue 35: screens and panes read `ctx.services` (a lost session raises `NotConnected`, said once by
    the app); no `getattr(widget.app, "session", None)` and no hand-written service accessor is left in the
    TUI."""
    found = [hit for path in sorted((SRC / "tui").rglob("*.py")) for hit in _session_lookups(path)]
    assert found == []
