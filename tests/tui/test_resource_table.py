"""ResourceTable and ResourceView driven through Pilot: keys, marks, sort, filter as you type, messages,
load-more, hostile cells rendered literally, virtualised rendering, and 100,000 rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from rich.style import Style
from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.message import Message

from labdeck.tui.widgets.resource_table import Column, ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_lines import TableLines


@dataclass(frozen=True)
class Project:
    id: int
    path: str
    stars: int


COLUMNS = [
    Column("id", "ID", align="right", sort_key=lambda p: p.id),
    Column("path", "Path"),
    Column("stars", "Stars", align="right", sort_key=lambda p: p.stars),
]


def cells(p: Project) -> tuple[str, ...]:
    return (str(p.id), p.path, str(p.stars))


def projects(count: int, start: int = 0) -> list[Project]:
    return [Project(i, f"group/project-{i:05d}", (i * 7) % 13) for i in range(start, start + count)]


class TableApp(App[None]):
    def __init__(self, rows: list[Any], *, has_more: bool = False, **table_args: Any) -> None:
        super().__init__()
        self.rows = rows
        self.has_more = has_more
        self.table_args = table_args
        self.messages: list[Message] = []

    def compose(self) -> ComposeResult:
        args = {"cells": cells, "row_key": lambda p: p.id, **self.table_args}
        columns = args.pop("columns", COLUMNS)
        table = ResourceTable(columns, self.rows, **args)
        table.has_more = self.has_more
        yield table

    @property
    def table(self) -> ResourceTable:
        return self.query_one(ResourceTable)

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        self.messages.append(event)

    def on_resource_table_load_more(self, event: ResourceTable.LoadMore) -> None:
        self.messages.append(event)

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.messages.append(event)

    def of(self, kind: type[Message]) -> list[Any]:
        return [m for m in self.messages if isinstance(m, kind)]


async def test_keys_move_the_cursor_and_scroll() -> None:
    app = TableApp(projects(500))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.table
        assert table.cursor_index == 0
        await pilot.press("down", "j", "j")
        assert table.cursor_row.id == 3
        await pilot.press("k", "up")
        assert table.cursor_index == 1
        await pilot.press("pagedown")
        assert table.cursor_index == 1 + 19  # a page is the 20 lines minus the header
        assert table.scroll_y > 0
        await pilot.press("G")
        assert table.cursor_index == 499
        await pilot.pause()
        assert "project-00499" in table.line_text(19)
        await pilot.press("g")
        assert table.cursor_index == 0 and table.scroll_y == 0
        await pilot.press("end", "pageup", "home")
        assert table.cursor_index == 0
        highlighted = [m.row.id for m in app.of(ResourceTable.RowHighlighted)]
        assert highlighted[:4] == [0, 1, 2, 3]


async def test_space_marks_and_moves_down_range_all_and_unmark() -> None:
    app = TableApp(projects(50))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.table
        await pilot.press("space")
        assert [p.id for p in table.marked_rows] == [0]
        assert table.cursor_index == 1
        await pilot.pause()
        assert table.line_text(1).startswith("●")
        assert not table.line_text(2).startswith("●")
        await pilot.press("j", "j", "v")
        assert [p.id for p in table.marked_rows] == [0, 1, 2, 3]
        await pilot.press("u")
        assert table.marked_rows == []
        await pilot.press("ctrl+a")
        assert len(table.marked_rows) == 50


async def test_marks_are_remappable_through_the_keymap() -> None:
    app = TableApp(projects(10))
    async with app.run_test(size=(80, 20)) as pilot:
        app.set_keymap({"table.mark": "x"})
        await pilot.press("x")
        assert [p.id for p in app.table.marked_rows] == [0]
        await pilot.press("space")
        assert [p.id for p in app.table.marked_rows] == [0]


async def test_sort_keys_and_header_marker() -> None:
    app = TableApp(projects(30))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.table
        await pilot.press("s")
        assert table.sort_column == "id"
        await pilot.press("s", "s")
        assert (table.sort_column, table.sort_reverse) == ("stars", False)
        stars = [p.stars for p in table.visible_rows]
        assert stars == sorted(stars)
        await pilot.pause()
        assert "Stars ▲" in table.line_text(0)
        await pilot.press("S")
        assert table.sort_reverse is True
        assert [p.stars for p in table.visible_rows] == sorted(stars, reverse=True)
        await pilot.pause()
        assert "Stars ▼" in table.line_text(0)


async def test_click_on_header_sorts_and_click_on_row_moves_then_selects() -> None:
    app = TableApp(projects(30))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.table
        header = table.line_text(0)
        await pilot.click(ResourceTable, offset=(header.index("Path"), 0))
        assert (table.sort_column, table.sort_reverse) == ("path", False)
        await pilot.click(ResourceTable, offset=(header.index("Path"), 0))
        assert (table.sort_column, table.sort_reverse) == ("path", True)
        assert table.cursor_row.id == 0 and table.cursor_index == 29  # the cursor follows its row
        await pilot.press("g")
        await pilot.click(ResourceTable, offset=(10, 3))
        assert table.cursor_index == 2
        assert app.of(ResourceTable.RowSelected) == []
        await pilot.click(ResourceTable, offset=(10, 3))
        await pilot.pause()
        assert [m.row for m in app.of(ResourceTable.RowSelected)] == [table.visible_rows[2]]


async def test_enter_posts_row_selected_with_the_cursor_row() -> None:
    app = TableApp(projects(10))
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.press("j", "j", "enter")
        await pilot.pause()
        selected = app.of(ResourceTable.RowSelected)
        assert [m.row.id for m in selected] == [2]
        assert selected[0].control is app.table


async def test_load_more_is_posted_once_near_the_end_then_again_after_rows_arrive() -> None:
    app = TableApp(projects(120), has_more=True)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert app.of(ResourceTable.LoadMore) == []
        await pilot.press("pagedown", "pagedown", "pagedown", "pagedown")  # cursor 72: within 50 of 120
        await pilot.pause()
        assert len(app.of(ResourceTable.LoadMore)) == 1
        await pilot.press("j", "j", "G")
        await pilot.pause()
        assert len(app.of(ResourceTable.LoadMore)) == 1
        app.table.append_rows(projects(100, start=120))
        await pilot.press("G")
        await pilot.pause()
        assert len(app.of(ResourceTable.LoadMore)) == 2
        app.table.has_more = False
        app.table.append_rows(projects(10, start=220))
        assert len(app.table.rows) == 230
        await pilot.press("G")
        await pilot.pause()
        assert len(app.of(ResourceTable.LoadMore)) == 2


async def test_loading_and_empty_state_lines() -> None:
    app = TableApp(projects(3))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.table
        table.loading_more = True
        await pilot.pause()
        assert "Loading more" in table.line_text(4)
        table.loading_more = False
        table.set_filter("[b]zzz")
        await pilot.pause()
        assert table.visible_rows == []
        assert "No rows match “[b]zzz”" in table.line_text(1)
        table.set_filter("")
        table.clear()
        await pilot.pause()
        assert "No rows" in table.line_text(1)


HOSTILE = [
    ("1", "[@click=app.quit]x", "[/bold]"),
    ("2", "\x1b]52;c;ZXZpbA==\x07", "t" * 10_000),
    ("3", "日本語のタイトル😀", Text("[red]styled[/red]", style="bold")),
]


async def test_hostile_cells_render_literally_and_clicking_them_is_harmless() -> None:
    columns = [Column("n", "N"), Column("a", "A", width=24), Column("b", "B")]
    app = TableApp(HOSTILE, columns=columns, cells=tuple, row_key=lambda r: r[0])
    async with app.run_test(size=(100, 10)) as pilot:
        table = app.table
        await pilot.pause()
        lines = [table.line_text(y) for y in range(1, 4)]
        assert "[@click=app.quit]x" in lines[0] and "[/bold]" in lines[0]
        assert "␛]52;c;ZXZpbA==␇" in lines[1] and "\x1b" not in lines[1]
        assert lines[1].rstrip().endswith("…") and len(lines[1]) == 100
        assert "日本語のタイトル😀" in lines[2] and "[red]styled[/red]" in lines[2]
        for y in (1, 2, 3):
            await pilot.click(ResourceTable, offset=(6, y))
            await pilot.click(ResourceTable, offset=(6, y))
        await pilot.pause()
        assert app.is_running and app.return_code is None
        # the first click lands on the cursor row (selects); the others move first, then select
        assert [m.row[0] for m in app.of(ResourceTable.RowSelected)] == ["1", "1", "2", "3"]


async def test_a_text_cell_carrying_a_click_action_is_inert() -> None:
    trap = Text("click me", style=Style(meta={"@click": "app.quit"}))
    columns = [Column("n", "N"), Column("a", "A")]
    app = TableApp([("1", trap), ("2", "plain")], columns=columns, cells=tuple, row_key=lambda r: r[0],
                   zebra=True)
    async with app.run_test(size=(60, 8)) as pilot:
        await pilot.pause()
        strip = app.table.render_line(1)
        assert "click me" in strip.text
        assert all(not (segment.style and segment.style.meta) for segment in strip)
        await pilot.click(ResourceTable, offset=(10, 1))
        await pilot.click(ResourceTable, offset=(10, 1))
        await pilot.pause()
        assert app.is_running and app.return_code is None


@pytest.mark.drawn
async def test_only_visible_rows_are_rendered(monkeypatch: pytest.MonkeyPatch) -> None:
    rendered: list[int] = []
    original = TableLines.row

    def spy(self: TableLines, index: int, *args: Any) -> Any:
        rendered.append(index)
        return original(self, index, *args)

    monkeypatch.setattr(TableLines, "row", spy)
    calls = 0

    def counting_cells(p: Project) -> tuple[str, ...]:
        nonlocal calls
        calls += 1
        return cells(p)

    app = TableApp(projects(5_000), cells=counting_cells)
    async with app.run_test(size=(80, 20)) as pilot:
        await pilot.pause()
        assert rendered and max(rendered) < 20
        await pilot.press("pagedown")
        await pilot.pause()
        assert max(rendered) < 40
        assert calls == 5_000  # once per row at load; rendering reuses them


async def test_one_hundred_thousand_rows_load_and_reach_the_end() -> None:
    app = TableApp(projects(100_000))
    async with app.run_test(size=(100, 30)) as pilot:
        table = app.table
        assert len(table.rows) == 100_000
        await pilot.press("G")
        await pilot.pause()
        assert table.cursor_row.id == 99_999
        assert "project-99999" in table.line_text(29)
        table.set_filter("project-9999")
        await pilot.pause()
        assert [p.id for p in table.visible_rows] == list(range(99_990, 100_000))
        await pilot.press("s", "S")
        assert table.visible_rows[0].id == 99_999


# ---- ResourceView ----------------------------------------------------------------------------------------

# a view's columns say their own text (screens never pass a cells function)
VIEW_COLUMNS = [
    Column("id", "ID", align="right", sort_key=lambda p: p.id, text=lambda p: str(p.id)),
    Column("path", "Path", text=lambda p: p.path),
    Column("stars", "Stars", align="right", sort_key=lambda p: p.stars, text=lambda p: str(p.stars)),
]


class ViewApp(App[None]):
    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "back", "Back")]

    def __init__(self, rows: list[Project]) -> None:
        super().__init__()
        self.rows = rows
        self.backs = 0

    def action_back(self) -> None:
        self.backs += 1

    def compose(self) -> ComposeResult:
        yield ResourceView(VIEW_COLUMNS, self.rows, row_key=lambda p: p.id,
                           detail=lambda p: f"[b]{p.path}[/b] has {p.stars} stars")

    @property
    def view(self) -> ResourceView:
        return self.query_one(ResourceView)


def footer(app: ViewApp) -> str:
    return str(app.view.footer.render())


async def test_view_filters_as_you_type_and_escape_clears() -> None:
    app = ViewApp(projects(2_000))
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.view
        view.table.focus()
        await pilot.pause()
        assert not view.filter_input.display
        await pilot.press("slash")
        assert view.filtering and view.filter_input.has_focus
        await pilot.press("1", "9", "9")
        assert view.table.filter_text == "199"
        assert len(view.table.visible_rows) == 12  # 199, 1199 and 1990-1999
        await pilot.press("d")  # typed into the filter, not the detail toggle
        assert view.table.filter_text == "199d" and not view.detail_shown
        await pilot.press("backspace")
        await pilot.pause()
        assert "12 of 2,000 rows" in footer(app) and "filter “199”" in footer(app)
        await pilot.press("enter")
        assert view.table.has_focus and view.table.filter_text == "199"
        await pilot.press("escape")
        assert view.table.filter_text == "" and not view.filtering
        assert app.backs == 0  # that escape closed the filter
        await pilot.pause()
        assert footer(app).startswith("2,000 rows")
        await pilot.press("escape")  # nothing to close: escape reaches the screen ("back")
        assert app.backs == 1


async def test_view_footer_counts_marks_and_sort() -> None:
    app = ViewApp(projects(1_234))
    async with app.run_test(size=(100, 24)) as pilot:
        app.view.table.focus()
        await pilot.press("space", "space", "space", "s", "s")
        await pilot.pause()
        assert footer(app) == "1,234 rows · 3 marked · sorted by Path ▲"
        app.view.table.has_more = True
        await pilot.press("/", "0", "0", "1")
        await pilot.pause()
        matching = sum(any("001" in c for c in cells(p)) for p in projects(1_234))
        assert footer(app).startswith(f"{matching} of 1,234 rows (more to load) · 3 marked")


async def test_view_detail_pane_shows_highlighted_row_literally() -> None:
    app = ViewApp(projects(20))
    async with app.run_test(size=(100, 24)) as pilot:
        view = app.view
        view.table.focus()
        await pilot.press("d")
        assert view.detail_shown
        await pilot.press("j", "j")
        await pilot.pause()
        assert str(view.detail_pane.render()) == "[b]group/project-00002[/b] has 1 stars"
        view.table.replace_row(Project(2, "group/renamed", 5))
        await pilot.pause()
        assert str(view.detail_pane.render()) == "[b]group/renamed[/b] has 5 stars"
        await pilot.press("d")
        assert not view.detail_shown


async def test_a_large_load_freezes_the_heap_so_full_collections_skip_the_rows() -> None:
    """Loading FREEZE_ROWS rows or more moves what is alive to the permanent generation (no full
    collection walks the rows on a keypress); a small load does not."""
    import gc

    from labdeck.tui.widgets.resource_table import FREEZE_ROWS

    gc.unfreeze()
    try:
        app = TableApp(projects(10))
        async with app.run_test() as pilot:
            await pilot.pause()
            assert gc.get_freeze_count() == 0
            app.table.set_rows(projects(FREEZE_ROWS))
            assert gc.get_freeze_count() > 0
            await pilot.press("pagedown")
            assert app.table.cursor_index > 0
        gc.unfreeze()
        ResourceTable(COLUMNS, projects(FREEZE_ROWS), cells=cells)  # rows given at construction too
        assert gc.get_freeze_count() > 0
    finally:
        gc.unfreeze()


async def test_view_footer_says_one_row_in_the_singular() -> None:
    app = ViewApp(projects(1))
    async with app.run_test(size=(100, 24)) as pilot:
        app.view.table.focus()
        await pilot.press("space", "space")  # mark and unmark: the footer is drawn
        await pilot.pause()
        assert footer(app).startswith("1 row") and "1 rows" not in footer(app)
        app.view.table.set_filter("nothing matches this")
        await pilot.pause()
        assert footer(app).startswith("0 of 1 row") and "rows" not in footer(app)


async def test_rows_on_screen_are_the_rows_drawn_and_a_row_replaced_leaves_the_view_where_it_is() -> None:
    """A column read on demand reads the rows drawn (`rows_on_screen`: filter, sort and scroll applied); a
    row read again while the operator scrolled away from the cursor (the wheel moves the view, not the
    cursor) leaves the view where it is, unless the cursor moved (its sorted row went elsewhere)."""
    app = TableApp(projects(200))
    async with app.run_test(size=(80, 20)) as pilot:
        table = app.table
        shown = table.rows_on_screen()
        assert [p.id for p in shown] == list(range(len(shown))) and 10 < len(shown) < 20
        table.scroll_to(y=100, animate=False, force=True)
        await pilot.pause()
        assert [p.id for p in table.rows_on_screen()] == list(range(100, 100 + len(shown)))
        table.replace_row(Project(120, "group/read-again", 3))
        await pilot.pause()
        assert round(table.scroll_y) == 100 and table.cursor_index == 0
        table.set_filter("project-001")
        await pilot.pause()
        assert [p.id for p in table.rows_on_screen()] == list(range(100, 200))[:len(shown)]
        table.set_filter("")
        table.sort_by("stars")
        await pilot.pause()
        cursor = table.cursor_row
        table.replace_row(Project(cursor.id, cursor.path, 12))  # its sorted place is far below: followed
        await pilot.pause()
        assert table.cursor_row.id == cursor.id and table.cursor_row in table.rows_on_screen()
