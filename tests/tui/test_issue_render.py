"""The issues table's cells: built lazily (only for drawn rows), searched and sorted by their plain texts,
literal server text, and one shared chip Style per label colour."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text

from labdeck.api.models.issues import Issue
from labdeck.tui.screens.issues.render import (
    COLUMNS,
    issue_cells,
    issue_columns,
    issue_plains,
    label_chips,
    labels_first,
    reference_in,
)
from labdeck.tui.widgets.table_columns import column_cells
from labdeck.tui.widgets.table_model import LazyCells, TableModel, plain


def make_issue(n: int, **extra: Any) -> Issue:
    data: dict[str, Any] = {"id": 1000 + n, "iid": n, "project_id": 7, "title": f"issue {n}",
                            "references": {"full": f"grp/app#{n}"}}
    data.update(extra)
    return Issue.model_validate(data)


VARIED = [
    make_issue(1),
    make_issue(2, state="closed", confidential=True, title="[bold]not markup[/] \x1b[31m\x07",
               labels=[{"name": "bug", "color": "#d9534f", "text_color": "#FFFFFF"},
                       {"name": "[b]odd", "color": "red; blink"}, "bare"],
               assignees=[{"id": 5, "username": "ann"}, {"id": 6}],
               milestone={"id": 1, "title": "v1 ✓"}, due_date="2026-03-01",
               updated_at="2026-02-03T04:05:06Z"),
    make_issue(3, labels=[], milestone={"id": 2}, references=None),
]


def test_plains_are_exactly_the_built_cells_plain_texts() -> None:
    for issue in VARIED:
        assert issue_plains(issue) == tuple(plain(c) for c in issue_cells(issue))
    assert issue_plains(VARIED[1])[2] == "closed ⊘"
    assert issue_plains(VARIED[1])[3] == " bug   [b]odd   bare "
    assert issue_plains(VARIED[2])[0] == "#3"


def test_cells_are_literal_text_with_controls_kept() -> None:
    cells = issue_cells(VARIED[1])
    assert all(isinstance(c, Text) for c in cells)
    title = cells[1]
    assert title.plain == VARIED[1].title == "[bold]not markup[/] ␛[31m␇"  # controls shown, not obeyed
    assert not title.spans  # no markup parsed
    state = cells[2]
    assert str(state.style) == "magenta" and state.plain == "closed ⊘"
    assert [(s.start, s.end, str(s.style)) for s in state.spans] == [(6, 8, "yellow")]


def test_chip_styles_are_shared_per_colour_and_unchanged() -> None:
    labels = make_issue(9, labels=[{"name": "a", "color": "#112233", "text_color": "#ffffff"},
                                   {"name": "b", "color": "#112233", "text_color": "#ffffff"},
                                   {"name": "c", "color": "nope"}]).labels
    one, two = label_chips(labels), label_chips(labels)
    assert one.spans[0].style is one.spans[1].style is two.spans[0].style
    assert str(one.spans[0].style.bgcolor.name) == "#112233"  # type: ignore[union-attr]
    assert one.spans[2].style.reverse and one.spans[2].style.bgcolor is None  # type: ignore[union-attr]


def counting(cells: LazyCells) -> tuple[LazyCells, list[int]]:
    built: list[int] = []

    def build(issue: Issue) -> Any:
        built.append(issue.iid)
        return cells.build(issue)

    return LazyCells(build=build, plains=cells.plains), built


def test_model_builds_cells_only_for_rows_asked_for() -> None:
    cells, built = counting(issue_cells)
    model = TableModel(COLUMNS, cells, lambda i: i.id)
    model.set_rows([make_issue(n) for n in range(1, 501)])
    assert built == []
    model.set_filter("issue 42")
    assert [model.visible_row(i).iid for i in range(model.visible_count)] == [42, *range(420, 430)]
    assert built == []
    assert plain(model.visible_cells(0)[1]) == "issue 42"
    assert model.visible_cells(0) is model.visible_cells(0)  # built once, then kept
    assert built == [42]


def test_model_sorts_plain_columns_from_plains_and_rebuilds_replaced_rows() -> None:
    cells, built = counting(issue_cells)
    model = TableModel(COLUMNS, cells, lambda i: i.id)
    model.set_rows([make_issue(n, title=t) for n, t in ((1, "beta"), (2, "Alpha"), (3, "gamma"))])
    model.sort_by("title")
    assert [model.visible_row(i).iid for i in range(3)] == [2, 1, 3]
    assert built == []
    assert plain(model.visible_cells(0)[1]) == "Alpha"
    assert model.replace_row(make_issue(2, title="zeta"))
    assert [model.visible_row(i).iid for i in range(3)] == [1, 3, 2]
    assert plain(model.visible_cells(2)[1]) == "zeta"
    model.set_filter("zet")
    assert model.visible_count == 1


def test_eager_and_lazy_models_agree() -> None:
    issues = VARIED + [make_issue(n) for n in range(10, 40)]
    eager = TableModel(COLUMNS, issue_cells.build, lambda i: i.id)
    lazy = TableModel(COLUMNS, issue_cells, lambda i: i.id)
    for model in (eager, lazy):
        model.set_rows(issues)
        model.sort_by("labels", reverse=True)
        model.set_filter("i")
    assert eager.visible_count == lazy.visible_count > 0
    for i in range(eager.visible_count):
        assert eager.visible_key(i) == lazy.visible_key(i)
        assert [plain(c) for c in eager.visible_cells(i)] == [plain(c) for c in lazy.visible_cells(i)]


LABELS = make_issue(11, labels=["priority::high", "good first issue", "bug", "ux"]).labels


def test_the_labels_a_filter_asks_for_come_first() -> None:
    """Issue 34: filtered by `label:bug`, the Labels cell begins with `bug` whatever the label order."""
    assert [label.name for label in labels_first(LABELS, ("bug",))] == ["bug", "priority::high",
                                                                        "good first issue", "ux"]
    assert [label.name for label in labels_first(LABELS, ("UX", "bug"))][:2] == ["bug", "ux"]
    assert labels_first(LABELS, ()) is LABELS
    cells = column_cells(issue_columns(lambda: ("bug",)))(make_issue(11, labels=["priority::high", "bug"]))
    assert plain(cells[3]).startswith(" bug ")


@pytest.mark.parametrize(("width", "shown"), [
    (60, " priority::high   good first issue   bug   ux "),
    (40, " priority::high   good first issue  +2"),
    (25, " priority::high  +3"),
    (19, " priority::high  +3"),
    (18, " priority::hig… +3"),
    (4, " pr…"),
])
def test_labels_in_a_narrow_cell_are_whole_ones_and_a_count_of_the_rest(width: int, shown: str) -> None:
    chips = label_chips(LABELS, width)  # at 4: no room for a count, the first label cut
    assert chips.plain == shown and chips.cell_len <= width


@pytest.mark.parametrize(("width", "shown"), [
    (60, "stark-industries/developer-experience/scheduler-core#6"),
    (32, "stark-industri…/scheduler-core#6"),
    (18, "…/scheduler-core#6"),
    (12, "…uler-core#6"),
])
def test_a_cut_reference_keeps_its_project_and_number(width: int, shown: str) -> None:
    assert reference_in("stark-industries/developer-experience/scheduler-core#6", width) == shown
    assert len(shown) <= width
    assert reference_in("initech/renderer-config#1", 20) == "…/renderer-config#1"  # not "i…/renderer-…"
