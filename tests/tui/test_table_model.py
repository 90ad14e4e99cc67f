"""The headless ResourceTable model: sort stability, filter, marks that survive sort/filter/reload, range
marking, the load-more trigger, and the render helpers (widths, literal cells, truncation)."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from labdeck.tui.widgets import table_columns, table_model
from labdeck.tui.widgets.column_widths import MARKER_WIDTH, column_at
from labdeck.tui.widgets.table_model import Column, TableModel
from labdeck.tui.widgets.table_render import fit, header_segments, row_segments


@dataclass(frozen=True)
class Issue:
    iid: int
    title: str
    state: str
    weight: int | None = None


COLUMNS = [
    Column("iid", "IID", align="right", sort_key=lambda r: r.iid),
    Column("title", "Title"),
    Column("state", "State"),
    Column("weight", "Weight", sort_key=lambda r: r.weight),
]


def cells(row: Issue) -> tuple[str, ...]:
    return (str(row.iid), row.title, row.state, "" if row.weight is None else str(row.weight))


def make(rows: list[Issue]) -> TableModel:
    model = TableModel(COLUMNS, cells, row_key=lambda r: r.iid)
    model.set_rows(rows)
    return model


ISSUES = [
    Issue(1, "Crash on login", "opened", 3),
    Issue(2, "add dark mode", "closed", None),
    Issue(3, "Login is slow", "opened", 1),
    Issue(4, "Docs typo", "opened", 3),
    Issue(5, "LOGIN button misaligned", "closed", 2),
]


def iids(rows: list[Issue]) -> list[int]:
    return [r.iid for r in rows]


def test_model_has_no_textual_import() -> None:
    tree = ast.parse(Path(table_model.__file__).read_text(encoding="utf-8"))
    names = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    names |= {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    assert not any(str(n).startswith(("textual", "rich")) for n in names)


def test_filter_is_case_insensitive_substring_over_all_cells() -> None:
    model = make(ISSUES)
    model.set_filter("login")
    assert iids(model.visible_rows) == [1, 3, 5]
    model.set_filter("LOGIN is")
    assert iids(model.visible_rows) == [3]
    model.set_filter("closed")  # matches the state column, not a title
    assert iids(model.visible_rows) == [2, 5]
    model.set_filter("")
    assert iids(model.visible_rows) == [1, 2, 3, 4, 5]


def test_filter_does_not_match_across_cell_boundaries() -> None:
    model = make([Issue(1, "ab", "cd")])
    model.set_filter("bc")
    assert model.visible_rows == []


def test_narrowing_then_widening_filter_gives_the_same_result_as_fresh() -> None:
    model = make(ISSUES)
    for text in ["l", "lo", "log", "lo", "", "o", "op"]:
        model.set_filter(text)
        fresh = make(ISSUES)
        fresh.set_filter(text)
        assert iids(model.visible_rows) == iids(fresh.visible_rows), text


def test_sort_toggles_and_none_weights_sort_last() -> None:
    model = make(ISSUES)
    model.sort_by("weight")
    assert iids(model.visible_rows) == [3, 5, 1, 4, 2]
    model.sort_by("weight")  # same column again: reversed
    assert model.sort_reverse is True
    assert iids(model.visible_rows) == [2, 1, 4, 5, 3]
    model.sort_by(None)
    assert iids(model.visible_rows) == [1, 2, 3, 4, 5]


def test_default_sort_is_by_cell_text_case_insensitive() -> None:
    model = make(ISSUES)
    model.sort_by("title", reverse=False)
    assert [r.title for r in model.visible_rows] == [
        "add dark mode", "Crash on login", "Docs typo", "LOGIN button misaligned", "Login is slow",
    ]


def test_cycle_and_reverse_sort() -> None:
    model = make(ISSUES)
    model.cycle_sort()
    assert (model.sort_column, model.sort_reverse) == ("iid", False)
    model.cycle_sort()
    assert model.sort_column == "title"
    model.reverse_sort()
    assert (model.sort_column, model.sort_reverse) == ("title", True)
    for _ in range(2):
        model.cycle_sort()
    assert model.sort_column == "weight"
    model.cycle_sort()
    assert model.sort_column is None


def test_unknown_sort_column_raises() -> None:
    with pytest.raises(KeyError):
        make(ISSUES).sort_by("nope")


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(0, 3)), max_size=60), st.booleans())
def test_sort_is_stable_in_both_directions(pairs: list[tuple[int, int]], reverse: bool) -> None:
    rows = [Issue(i, f"t{i}", "s", weight=w) for i, (w, _) in enumerate(pairs)]
    model = make(rows)
    model.sort_by("weight", reverse=reverse)
    got = model.visible_rows
    expected = sorted(rows, key=lambda r: r.weight, reverse=reverse)  # Python's sort is stable
    assert iids(got) == iids(expected)


@given(st.lists(st.text(alphabet="abcAB ", max_size=6), max_size=40), st.text(alphabet="abAB", max_size=3))
def test_filter_matches_a_naive_scan(titles: list[str], needle: str) -> None:
    rows = [Issue(i, t, "x") for i, t in enumerate(titles)]
    model = make(rows)
    model.set_filter(needle)
    expected = [r.iid for r in rows if any(needle.lower() in c.lower() for c in cells(r))]
    assert iids(model.visible_rows) == expected


def test_marks_survive_sort_filter_and_reload() -> None:
    model = make(ISSUES)
    model.move_cursor(2)
    model.toggle_mark()
    model.move_cursor(4)
    model.toggle_mark()
    assert iids(model.marked_rows) == [3, 5]
    model.sort_by("title", reverse=True)
    model.set_filter("login")
    assert iids(model.marked_rows) == [3, 5]
    assert [model.is_marked_at(i) for i in range(model.visible_count)] == [
        model.visible_row(i).iid in (3, 5) for i in range(model.visible_count)
    ]
    # a reload with fresh objects keeps marks by key; a row that vanished loses its mark
    model.set_rows([Issue(r.iid, r.title + "!", r.state, r.weight) for r in ISSUES if r.iid != 5])
    assert iids(model.marked_rows) == [3]
    assert model.marked_rows[0].title == "Login is slow!"


def test_cursor_follows_its_row_through_sort_and_filter() -> None:
    model = make(ISSUES)
    model.move_cursor(2)  # issue 3
    model.sort_by("iid", reverse=True)
    assert model.cursor_row.iid == 3
    model.set_filter("login")
    assert model.cursor_row.iid == 3
    model.set_filter("docs")  # issue 3 filtered out: the cursor stays in range
    assert model.cursor_row.iid == 4


def test_range_marking_from_last_mark_to_cursor_in_both_directions() -> None:
    model = make(ISSUES)
    model.move_cursor(1)
    model.toggle_mark()
    model.move_cursor(3)
    assert model.mark_range() == 3
    assert iids(model.marked_rows) == [2, 3, 4]
    model.unmark_all()
    model.move_cursor(4)
    model.toggle_mark()
    model.move_cursor(2)
    model.mark_range()
    assert iids(model.marked_rows) == [3, 4, 5]


def test_range_marking_follows_display_order() -> None:
    model = make(ISSUES)
    model.sort_by("iid", reverse=True)  # 5 4 3 2 1
    model.move_cursor(0)
    model.toggle_mark()  # 5
    model.move_cursor(2)  # 3
    model.mark_range()
    assert iids(model.marked_rows) == [3, 4, 5]


def test_mark_all_marks_visible_only_and_unmark_all_clears() -> None:
    model = make(ISSUES)
    model.set_filter("closed")
    model.mark_all()
    assert iids(model.marked_rows) == [2, 5]
    model.unmark_all()
    assert model.marked_rows == []


def test_toggle_mark_twice_unmarks() -> None:
    model = make(ISSUES)
    assert model.toggle_mark() is True
    assert model.toggle_mark() is False
    assert model.marked_rows == []


def test_append_dedupes_by_key_and_keeps_sort() -> None:
    model = make(ISSUES[:3])
    model.sort_by("weight")
    model.append_rows([Issue(3, "Login is slow", "closed", 9), Issue(6, "new", "opened", 0)])
    assert model.row_count == 4
    assert iids(model.visible_rows) == [6, 1, 3, 2]


def test_replace_and_remove_rows() -> None:
    model = make(ISSUES)
    model.set_filter("login")
    assert model.replace_row(Issue(4, "login docs", "opened", 3)) is True
    assert iids(model.visible_rows) == [1, 3, 4, 5]
    assert model.replace_row(Issue(99, "x", "y")) is False
    model.move_cursor(1)
    model.toggle_mark()
    assert model.remove_rows([3, 42]) == 1
    assert iids(model.visible_rows) == [1, 4, 5]
    assert model.marked_rows == []
    assert model.cursor_row is not None


def test_clear_empties_everything() -> None:
    model = make(ISSUES)
    model.toggle_mark()
    model.clear()
    assert (model.rows, model.visible_rows, model.marked_rows, model.cursor_row) == ([], [], [], None)


def test_load_more_fires_once_near_the_end_until_rows_arrive() -> None:
    rows = [Issue(i, f"t{i}", "s") for i in range(200)]
    model = make(rows)
    model.has_more = True
    model.move_cursor(10)
    assert model.want_more(threshold=50) is False
    model.move_cursor(160)
    assert model.want_more(threshold=50) is True
    model.move_cursor(170)
    assert model.want_more(threshold=50) is False  # already requested
    model.append_rows([Issue(i, f"t{i}", "s") for i in range(200, 300)])
    assert model.want_more(threshold=50) is False  # cursor 170 is far from the new end
    model.move_cursor(260)
    assert model.want_more(threshold=50) is True
    model.has_more = False
    model.reset_load_request()
    model.move_cursor(299)
    assert model.want_more(threshold=50) is False


def test_tuple_rows_without_functions() -> None:
    model = TableModel([Column("a", "A"), Column("b", "B")])
    model.set_rows([("x", "1"), ("y", "2")])
    model.set_filter("Y")
    assert model.visible_rows == [("y", "2")]


def test_text_cells_are_searched_by_plain_text() -> None:
    model = TableModel([Column("a", "A")], cells=lambda r: (Text(r, style="bold"),), row_key=lambda r: r)
    model.set_rows(["Alpha", "beta"])
    model.set_filter("ALP")
    assert model.visible_rows == ["Alpha"]


def test_search_text_is_bounded_for_huge_cells() -> None:
    model = make([Issue(1, "x" * 10_000 + "needle", "s")])
    model.set_filter("needle")
    assert model.visible_rows == []
    model.set_filter("xxx")
    assert model.row_count == model.visible_count == 1


# ---- render helpers ------------------------------------------------------------------------------------


def test_fit_pads_truncates_with_ellipsis_and_counts_wide_cells() -> None:
    assert fit("abc", 5) == "abc  "
    assert fit("abc", 5, "right") == "  abc"
    assert fit("abcdefgh", 5) == "abcd…"
    wide = fit("日本語テキスト", 6)
    assert cell_len(wide) == 6 and wide.endswith("…")
    assert cell_len(fit("😀😀😀", 4)) == 4
    assert cell_len(fit("x" * 10_000, 30)) == 30


def test_cells_render_literally_with_controls_visible() -> None:
    console = Console(width=200)
    row_cells = ("[@click=app.quit]x", "[/bold]", "\x1b]52;c;ZXZpbA==\x07", "a\nb\tc\x9b")
    columns = [Column(str(i), str(i), width=30) for i in range(4)]
    segments = row_segments(row_cells, columns, [30] * 4, None, marked=True, console=console)
    text = "".join(s.text for s in segments)
    assert "[@click=app.quit]x" in text and "[/bold]" in text
    assert "\x1b" not in text and "\x07" not in text and "\n" not in text and "\x9b" not in text
    assert "␛]52;c;ZXZpbA==␇" in text
    assert text.startswith("●")
    assert all(not s.style or not s.style.meta for s in segments)


def test_text_cells_keep_style_and_are_cut_to_width() -> None:
    console = Console(width=200)
    cell_value = Text("hello world", style="red")
    segments = row_segments((cell_value,), [Column("a", "A")], [6], None, False, console)
    cell = [s for s in segments[1:] if s.text.strip()]
    assert "".join(s.text for s in segments[1:]) == "hello…"
    assert cell[0].style is not None and cell[0].style.color is not None


def test_style_fn_applies_and_a_bad_style_is_ignored() -> None:
    console = Console(width=200)
    good = Column("a", "A", style_fn=lambda r: "green")
    bad = Column("b", "B", style_fn=lambda r: "not-a-style[")
    segments = row_segments(("x", "y"), [good, bad], [3, 3], None, False, console)
    assert segments[1].style is not None and segments[1].style.color.name == "green"
    assert segments[3].style is None


def test_header_marks_sorted_column_and_column_at_maps_clicks() -> None:
    columns = [Column("a", "Name"), Column("b", "Age")]
    text = "".join(s.text for s in header_segments(columns, [8, 6], "b", reverse=True))
    assert "Age ▼" in text and "▲" not in text
    assert column_at([8, 6], 0) is None
    assert column_at([8, 6], MARKER_WIDTH) == 0
    assert column_at([8, 6], MARKER_WIDTH + 9) == 1
    assert column_at([8, 6], 100) is None


def test_lazy_cells_are_built_on_demand_and_survive_removals() -> None:
    built: list[int] = []

    def build(n: int) -> tuple[Text, Text]:
        built.append(n)
        return Text(str(n)), Text(f"row {n}", style="bold")

    lazy = table_model.LazyCells(build=build, plains=lambda n: (str(n), f"row {n}"))
    model = TableModel([Column("n", "N"), Column("name", "Name")], lazy)
    model.set_rows(range(10))
    model.sort_by("name", reverse=True)
    model.set_filter("row")
    assert built == [] and model.visible_count == 10
    assert model.visible_cells(0)[1].plain == "row 9"  # type: ignore[union-attr]
    model.remove_rows([9, 3])
    assert [model.visible_cells(i)[0].plain for i in range(3)] == ["8", "7", "6"]  # type: ignore[union-attr]
    assert built == [9, 8, 7, 6]


# ---- cells from the columns ------------------------------------------------------------------------------

def test_columns_that_say_their_plain_text_give_lazy_cells_built_only_when_drawn() -> None:
    built: list[str] = []

    def shout(row: str) -> Text:
        built.append(row)
        return Text(row.upper(), style="bold")

    columns = [table_columns.plain_column("name", "Name", str.lower),
               table_model.Column("loud", "Loud", text=shout, plain=str.upper)]
    cells = table_model.cells_from(columns)
    assert isinstance(cells, table_model.LazyCells)
    assert [table_model.plain(c) for c in cells("Ab")] == list(cells.plains("Ab")) == ["ab", "AB"]
    built.clear()
    model = TableModel(columns)  # no cells function: the lazy path comes from the columns
    model.set_rows(["b", "A", "c"])
    model.set_filter("a")
    assert built == []
    assert [table_model.plain(c) for c in model.visible_cells(0)] == ["a", "A"]
    assert built == ["A"]
    # a column without its plain text: cells are built at once, as before
    eager = table_model.cells_from([columns[0], table_model.Column("loud", "Loud", text=shout)])
    assert eager is not None and not isinstance(eager, table_model.LazyCells)


def test_a_sort_by_a_plain_column_reads_that_column_alone() -> None:
    read: list[str] = []

    def other(row: str) -> str:
        read.append(row)
        return row

    columns = [table_columns.plain_column("name", "Name", str.lower),
               table_columns.plain_column("o", "O", other)]
    model = TableModel(columns)
    model.set_rows(["b", "C", "a"])
    read.clear()
    model.sort_by("name")
    assert [model.visible_row(i) for i in range(3)] == ["a", "b", "C"]
    assert read == []
