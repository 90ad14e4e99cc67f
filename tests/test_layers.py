"""The layer rules of the design: domain imports nothing of ours, api/domain/sandbox never import Textual,
domain never imports httpx, sandbox never imports the client, config sits below the TUI, nothing but the entry
point imports the headless commands, no import cycle joins modules of different folders, and no import-time
cycle joins modules of one folder (the client's and the table's parts import one way even for types)."""

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


def test_config_uses_three_parts_of_the_api_only() -> None:
    """docs/design.md: `config` imports the connection settings, the errors and private files of `api`."""
    allowed = ("labdeck.api.settings", "labdeck.api.errors", "labdeck.api.private_files")
    used = {name for names in _layer_imports("config").values() for name in names
            if name.startswith("labdeck.api") and name != "labdeck.api"}
    assert {name for name in used if not name.startswith(allowed)} == set()


def test_the_tui_starts_the_sandbox_from_launch_only() -> None:
    """docs/design.md: one module of `tui`, `launch.py`, starts the embedded sandbox for `--demo`."""
    reaching = {module for module, names in _layer_imports("tui").items()
                if any(n == "labdeck.sandbox" or n.startswith("labdeck.sandbox.") for n in names)}
    assert reaching == {"tui/launch.py"}


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


# -- cycles inside one folder ------------------------------------------------------------------------------
# A folder's modules import one way: what runs when a module is imported (its top level, class bodies,
# `try` and plain `if` blocks) never comes back to it through its own folder. `TYPE_CHECKING` blocks never
# run, and an import inside a function runs late, when every module is loaded (screens open each other
# that way: see `test_no_import_cycle_between_folders` for what those may not do).


def _top_level_imports(path: Path, *, types: bool = False) -> set[str]:
    """The absolute imports a module runs when it is imported (with `types=True`, its `TYPE_CHECKING`
    imports too); never those inside a function."""
    names: set[str] = set()

    def visit(body: list[ast.stmt]) -> None:
        for node in body:
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module)
                names.update(f"{node.module}.{alias.name}" for alias in node.names)
            elif isinstance(node, ast.If):
                if types or "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
                visit(node.orelse)
                visit(node.finalbody)
            elif isinstance(node, ast.With | ast.ClassDef):
                visit(node.body)

    visit(ast.parse(path.read_text(encoding="utf-8")).body)
    return names


def _folder_graph(root: Path, *, types: bool = False) -> dict[str, set[str]]:
    """Each module of `root` and the modules of its own folder it imports at import time."""
    paths = {_module_name_in(root, p): p for p in root.rglob("*.py")}
    folder = {name: path.parent for name, path in paths.items()}
    return {name: {m for m in _top_level_imports(path, types=types)
                   if m in paths and m != name and folder[m] == folder[name]}
            for name, path in paths.items()}


def _module_name_in(root: Path, path: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_no_import_cycle_inside_a_folder() -> None:
    """Every folder of `src/labdeck` (`api/`, `domain/`, `tui/widgets/`, `tui/screens/...`, `sandbox/`,
    `config/`, `cli/`): a module's import-time imports never lead back to it through its own folder."""
    cycles = [sorted(c) for c in _cycles(_folder_graph(SRC))]
    assert cycles == []


@pytest.mark.parametrize("folder", ["api", "tui/widgets"])
def test_the_client_and_the_table_import_one_way_even_for_types(folder: str) -> None:
    """`ApiClient` is one module over the parts it uses (addressing, the read-only guard, the page walks),
    and `ResourceTable` one widget over its model, columns, widths and drawing: no part names the whole,
    even in a `TYPE_CHECKING` block (issue 35: the client's reads and pages typed against the client, the
    table's actions and messages against the widget)."""
    graph = _folder_graph(SRC, types=True)
    prefix = "labdeck." + folder.replace("/", ".") + "."
    mine = {name: {m for m in names if m.startswith(prefix)}
            for name, names in graph.items() if name.startswith(prefix)}
    assert [sorted(c) for c in _cycles(mine)] == []


def test_the_folder_cycle_finder_sees_import_time_cycles_only(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("import pkg.b\n")
    (package / "b.py").write_text("try:\n    from pkg.a import x\nexcept ImportError:\n    pass\n")
    (package / "c.py").write_text("from typing import TYPE_CHECKING\nimport pkg.a\n"
                                  "if TYPE_CHECKING:\n    from pkg import d\n")
    (package / "d.py").write_text("import pkg.c\n")
    (package / "e.py").write_text("def later():\n    import pkg.f\n")
    (package / "f.py").write_text("import pkg.e\n")
    (package / "sub" / "g.py").write_text("import pkg.h\n")
    (package / "h.py").write_text("import pkg.sub.g\n")
    graph = _folder_graph(package)
    assert _cycles(graph) == [{"pkg.a", "pkg.b"}]  # c <-> d only for types, e -> f in a function, g/h apart
    assert sorted(sorted(c) for c in _cycles(_folder_graph(package, types=True))) == [
        ["pkg.a", "pkg.b"], ["pkg.c", "pkg.d"]]
