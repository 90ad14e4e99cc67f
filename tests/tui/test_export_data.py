"""Exports hold the data, not the screen's text (issue 34): each list is exported from its columns' data
(`Column(data=...)`), so labels are a list (one CSV cell, `,`-joined: GitLab refuses a comma in a label's
title, `app/models/label.rb` `format: { with: /\\A[^,]+\\z/ }`), the state is GitLab's word with
`confidential` its own field, numbers are numbers and times ISO 8601. Read back with Python's own `csv` and
`json` readers; formula neutralisation still holds for text cells, never for numbers."""

from __future__ import annotations

import csv
import json
from datetime import date, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from test_issue_render import make_issue
from test_one_column_declaration import _declared_columns

from labdeck.api.models.projects import Project
from labdeck.tui.list_export import LIST_SEPARATOR, csv_cell, json_value, split_list, write_rows
from labdeck.tui.screens.issues.render import COLUMNS as ISSUE_COLUMNS
from labdeck.tui.screens.projects.projects import PROJECT_COLUMNS
from labdeck.tui.widgets.table_columns import column_cells
from labdeck.tui.widgets.table_model import Column

ISSUES = [
    make_issue(6, state="closed", confidential=True, title="=cmd|' /C calc'!A0",
               labels=[{"name": "good first issue", "color": "#00ff00"}, {"name": "bug"}],
               assignees=[{"id": 5, "username": "ann"}, {"id": 6, "username": "bo"}],
               milestone={"id": 1, "title": "v1"}, due_date="2026-03-01",
               updated_at="2026-02-03T04:05:06Z", web_url="https://gitlab.example/grp/app/-/issues/6"),
    make_issue(7, labels=[], updated_at=None),
]
PROJECTS = [
    Project(id=58, path_with_namespace="acme/platform/api-gateway", visibility="private",
            default_branch="main", star_count=12,
            last_activity_at=datetime.fromisoformat("2026-01-02T03:04:05+00:00"), archived=True),
    Project(id=59, path_with_namespace="-negative/stars", star_count=0, archived=False),
]


def table(columns: list[Column]) -> Any:
    """What the export reads of a ResourceTable: its columns (and, for what has no data, its cells)."""
    cells = column_cells(columns)
    return SimpleNamespace(columns=columns, model=SimpleNamespace(cells_of=lambda row: tuple(cells(row))))


async def export(path: Path, columns: list[Column], rows: list[Any]) -> Path:
    return await write_rows(path, table(columns), rows, lambda _n: None)


def read_csv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


async def test_issues_round_trip_through_the_csv_reader(tmp_path: Path) -> None:
    first, second = read_csv(await export(tmp_path / "issues.csv", ISSUE_COLUMNS, ISSUES))
    assert split_list(first["labels"]) == ["good first issue", "bug"]  # not " good first issue   bug "
    assert first["state"] == "closed" and first["confidential"] == "true"  # not "closed ⊘"
    assert second["state"] == "opened" and second["confidential"] == "false"
    assert split_list(second["labels"]) == []
    assert split_list(first["assignees"]) == ["ann", "bo"]
    assert int(first["id"]) == 1006 and first["reference"] == "grp/app#6"
    assert datetime.fromisoformat(first["updated"]) == datetime.fromisoformat("2026-02-03T04:05:06+00:00")
    assert date.fromisoformat(first["due"]) == date(2026, 3, 1)
    assert second["updated"] == "" and second["due"] == ""
    assert first["title"] == "'=cmd|' /C calc'!A0"  # a text cell is still neutralised
    assert first["web_url"] == "https://gitlab.example/grp/app/-/issues/6"


async def test_issues_round_trip_through_the_json_reader(tmp_path: Path) -> None:
    first, second = json.loads((await export(tmp_path / "issues.json", ISSUE_COLUMNS, ISSUES))
                               .read_text(encoding="utf-8"))
    assert first["labels"] == ["good first issue", "bug"] and second["labels"] == []
    assert first["state"] == "closed" and first["confidential"] is True and second["confidential"] is False
    assert first["assignees"] == ["ann", "bo"] and first["milestone"] == "v1"
    assert first["id"] == 1006 and isinstance(first["id"], int)
    assert datetime.fromisoformat(first["updated"]) == datetime.fromisoformat("2026-02-03T04:05:06+00:00")
    assert first["due"] == "2026-03-01" and second["due"] is None and second["updated"] is None
    assert first["title"] == "=cmd|' /C calc'!A0"  # JSON is data: nothing to neutralise


async def test_projects_round_trip_numbers_times_and_flags(tmp_path: Path) -> None:
    csv_rows = read_csv(await export(tmp_path / "projects.csv", PROJECT_COLUMNS, PROJECTS))
    json_rows = json.loads((await export(tmp_path / "projects.json", PROJECT_COLUMNS, PROJECTS))
                           .read_text(encoding="utf-8"))
    assert [int(r["stars"]) for r in csv_rows] == [12, 0] and [r["stars"] for r in json_rows] == [12, 0]
    assert [int(r["id"]) for r in csv_rows] == [58, 59] and [r["id"] for r in json_rows] == [58, 59]
    assert [r["archived"] for r in csv_rows] == ["true", "false"]
    assert [r["archived"] for r in json_rows] == [True, False]
    stamp = datetime.fromisoformat("2026-01-02T03:04:05+00:00")
    assert datetime.fromisoformat(csv_rows[0]["activity"]) == stamp
    assert datetime.fromisoformat(json_rows[0]["activity"]) == stamp
    assert csv_rows[1]["path"] == "'-negative/stars"  # text neutralised
    assert json_rows[0]["visibility"] == "private" and json_rows[0]["branch"] == "main"


def test_the_shared_exporter_writes_each_kind_of_value() -> None:
    """One rule for every list: numbers stay numbers (never neutralised: `-5` is a number), text that a
    spreadsheet would run is neutralised, lists are one cell (`,`, with `\\` escaping a `,` or `\\` in an
    item a server sent anyway), times are ISO 8601, nothing is a Python repr."""
    stamp = datetime.fromisoformat("2026-01-02T03:04:05+00:00")
    assert [csv_cell(v) for v in (-5, 2.5, True, False, None)] == ["-5", "2.5", "true", "false", ""]
    assert [csv_cell(v) for v in ("-5", "@x", "=1", "+1", "\tx", "\rx", "ok")] == [
        "'-5", "'@x", "'=1", "'+1", "'\tx", "'\rx", "ok"]
    assert csv_cell(stamp) == "2026-01-02T03:04:05+00:00" and csv_cell(date(2026, 1, 2)) == "2026-01-02"
    assert LIST_SEPARATOR == ","
    assert csv_cell(["bug", "good first issue"]) == "bug,good first issue"
    assert csv_cell(["a,b", "c\\d"]) == "a\\,b,c\\\\d" and split_list("a\\,b,c\\\\d") == ["a,b", "c\\d"]
    assert csv_cell(["=x", "y"]) == "'=x,y" and csv_cell([]) == ""
    assert [json_value(v) for v in (-5, None, True, stamp, date(2026, 1, 2), ("a", 1), float("nan"))] == [
        -5, None, True, "2026-01-02T03:04:05+00:00", "2026-01-02", ["a", 1], None]


def test_every_exported_column_of_every_list_says_its_data() -> None:
    """An export is made of the columns' data: every list's exported columns declare it."""
    missing = [f"{where}: {column.key}" for where, columns in _declared_columns().items()
               for column in columns if column.exported and column.data is None]
    assert missing == []


def test_every_list_exports_each_field_name_once() -> None:
    """A field named twice (a column keyed `id` beside the record's own `id`) would lose one in JSON."""
    from labdeck.tui.list_export import header

    twice = {}
    for where, columns in _declared_columns().items():
        exported = [at for at, column in enumerate(columns) if column.exported]
        names = header(SimpleNamespace(columns=columns), exported)
        if len(names) != len(set(names)):
            twice[where] = sorted({n for n in names if names.count(n) > 1})
    assert twice == {}
