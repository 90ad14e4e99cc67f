"""Adding a column is one declaration: every list of `tui/` says each cell on its `Column` (`text=`, and
`plain=` where the list builds its cells lazily), and no list passes a separate cells function. Walked
once over the sources and the screens' column declarations, with no app."""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
from test_issue_render import make_issue

import labdeck.tui
import labdeck.tui.kit
import labdeck.tui.screens
from labdeck.tui.kit.tabs import TabSpec
from labdeck.tui.screens.issues.render import COLUMNS as ISSUE_COLUMNS
from labdeck.tui.screens.registry.size_column import Sizes
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_model import Column, LazyCells, TableModel, cells_from, plain

TUI = Path(labdeck.tui.__file__).parent
KIT = {"widgets/resource_table.py"}  # the kit itself hands its columns' cells to the model


def _cells_passed(source: str, where: str) -> list[str]:
    """Each call in `source` that passes a cells function (`cells=...`, or a model's second positional)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        if any(keyword.arg == "cells" for keyword in node.keywords) or (name == "TableModel"
                                                                          and len(node.args) > 1):
            found.append(f"{where}:{node.lineno}")
    return found


def test_no_list_of_the_tui_passes_a_cells_function() -> None:
    sources = {path.relative_to(TUI).as_posix(): path for path in sorted(TUI.rglob("*.py"))}
    found = [hit for where, path in sources.items() if where not in KIT
             for hit in _cells_passed(path.read_text(encoding="utf-8"), where)]
    assert found == []


def test_the_walk_sees_a_separate_cells_function() -> None:
    """The walk above can fail: it sees both forms of a separate cells function, and not a column's text."""
    source = ("ResourceView(COLUMNS, cells=project_cells)\nTableModel(COLUMNS, cells)\n"
              "ResourceView(COLUMNS, row_key=key)\nColumn('a', 'A', text=lambda r: r)\n")
    assert _cells_passed(source, "probe.py") == ["probe.py:1", "probe.py:2"]


def test_a_view_refuses_a_column_that_does_not_say_its_cell() -> None:
    with pytest.raises(ValueError, match="text="):
        ResourceView([Column("name", "Name", text=lambda r: r), Column("age", "Age")])
    assert "cells" not in inspect.signature(ResourceView).parameters


def _declared_columns() -> dict[str, list[Column]]:
    """Every column list the screens and the kit declare: module-level lists, `*_columns(...)` builders
    (called with stand-ins: the cells are not drawn here) and the tab specs of `*_tab(...)`."""
    stand_ins: dict[str, Any] = {"today": date(2026, 1, 1), "now": lambda: datetime(2026, 1, 1, tzinfo=UTC),
                                 "figures": lambda row: "", "sizes": Sizes()}
    found: dict[str, list[Column]] = {}
    packages = [(labdeck.tui.screens.__path__, "labdeck.tui.screens."),
                (labdeck.tui.kit.__path__, "labdeck.tui.kit.")]
    for info in (found for path, prefix in packages for found in pkgutil.walk_packages(path, prefix)):
        module = importlib.import_module(info.name)
        for name, value in vars(module).items():
            where = f"{info.name}.{name}"
            if isinstance(value, list) and value and all(isinstance(c, Column) for c in value):
                found[where] = value
            elif inspect.isfunction(value) and value.__module__ == info.name and (
                    name.endswith("_columns") or name.endswith("_tab")):
                params = inspect.signature(value).parameters.values()
                args = [stand_ins.get(p.name) for p in params if p.default is inspect.Parameter.empty]
                built = value(*args)
                columns = built.columns if isinstance(built, TabSpec) else built
                if isinstance(columns, list) and all(isinstance(c, Column) for c in columns):
                    found[where] = columns
    return found


def test_every_column_the_screens_declare_says_its_cell() -> None:
    declared = _declared_columns()
    # the walk sees the lists of each kind: a module list, a builder, a tab
    assert {"labdeck.tui.screens.projects.projects.PROJECT_COLUMNS", "labdeck.tui.screens.users.users."
            "user_columns", "labdeck.tui.kit.members.member_tab"} <= set(declared)
    missing = [f"{where}: {column.key}" for where, columns in declared.items() for column in columns
               if column.text is None]
    assert missing == []


def test_the_issues_list_builds_its_cells_lazily_from_its_columns() -> None:
    """At 100,000 issues the styled cells are built only for drawn rows: the lazy path comes from the
    columns (`plain=` on each), with no cells function of the screen."""
    assert isinstance(cells_from(ISSUE_COLUMNS), LazyCells)
    built: list[str] = []

    def counted(column: Column) -> Column:
        text = column.text
        assert text is not None

        def count(row: Any) -> Any:
            built.append(column.key)
            return text(row)
        return replace(column, text=count)

    model = TableModel([counted(c) for c in ISSUE_COLUMNS], row_key=lambda i: i.id)
    model.set_rows([make_issue(n) for n in range(1, 501)])
    model.set_filter("issue 42")
    model.sort_by("title")
    assert built == []
    assert [plain(c) for c in model.visible_cells(0)][:2] == ["grp/app#42", "issue 42"]
    assert len(built) == len(ISSUE_COLUMNS)
