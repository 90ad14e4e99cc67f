"""ResourceTable frames at scale (issue 16 goal 4): a row is one strip built with its final styles, the
line facts worked out once per repaint still follow a resize, and a large table's frames are followed by
a full garbage collection in idle time (never while the collector is off)."""

from __future__ import annotations

import gc

import pytest
from rich.console import Console
from rich.style import Style
from rich.text import Text
from snapshot_apps import until
from test_resource_table import TableApp, projects
from textual.strip import Strip

from labdeck.tui.widgets.gc_pacing import FREEZE_STEP, LARGE_ROWS, FramePacer
from labdeck.tui.widgets.resource_table import Column
from labdeck.tui.widgets.table_render import row_segments


def test_a_row_built_with_its_line_style_equals_the_styled_strip() -> None:
    """`line_style` gives what `Strip.apply_style` then `discard_meta` gave, for plain, styled and Text
    cells (a Text cell's `@click` meta is dropped either way)."""
    console = Console(width=200)
    columns = [Column("a", "A", width=8, style_fn=lambda row: "bold red"), Column("b", "B", width=12),
               Column("c", "C", width=10, align="right")]
    trap = Text("click me now", style=Style(meta={"@click": "app.quit"}))
    line = Style(color="white", bgcolor="blue") + Style(bold=True)
    for cells in (("one", "two", "3"), ("x" * 20, trap, Text("é wide 漢字", style="green"))):
        for marked in (False, True):
            old = Strip(row_segments(cells, columns, [8, 12, 10], None, marked, console, Style(color="cyan")))
            old = old.apply_style(line).discard_meta()
            new = row_segments(cells, columns, [8, 12, 10], None, marked, console, Style(color="cyan"),
                               line_style=line)
            assert list(new) == list(old)
            assert all(not segment.style.meta for segment in new if segment.style)
            assert Strip(new).cell_length == 2 + 8 + 12 + 10 + 2


async def test_lines_follow_a_resize_of_the_terminal() -> None:
    app = TableApp(projects(30))
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.pause()
        width = app.table.scrollable_content_region.width
        assert len(app.table.line_text(1)) == width
        await pilot.resize_terminal(70, 20)
        # (one pause was not always enough on a loaded machine: the resize is laid out on a later frame)
        await until(pilot, lambda: app.table.scrollable_content_region.width < width, "the table narrowed")
        assert len(app.table.line_text(1)) == app.table.scrollable_content_region.width
        assert "group/project-00000" in app.table.line_text(1)


class _FullCollections:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            self.count += 1


@pytest.mark.drawn
async def test_a_page_of_new_lines_on_a_large_table_is_followed_by_a_full_collection() -> None:
    seen = _FullCollections()
    gc.callbacks.append(seen)
    try:
        app = TableApp(projects(10))
        async with app.run_test(size=(100, 24)) as pilot:
            app.table.focus()
            await pilot.press("pagedown", "pagedown")
            await pilot.pause()
            assert app.table._pacer.collections == 0  # a small table leaves the collector alone
            app.table.set_rows(projects(LARGE_ROWS))
            await pilot.pause()
            before, ours = seen.count, app.table._pacer.collections
            for _ in range(3):
                await pilot.press("pagedown")
                await pilot.pause()
            assert app.table._pacer.collections >= ours + 3
            assert seen.count >= before + 3
            assert app.table.cursor_index >= 3 * 20
    finally:
        gc.callbacks.remove(seen)
        gc.unfreeze()


def test_no_collection_while_the_collector_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """While a listing is parsed the collector is paused on purpose: a frame must not switch it back on
    or collect anyway."""
    later: list[object] = []
    collected: list[int] = []
    monkeypatch.setattr(gc, "collect", lambda *args: collected.append(1) or 0)  # (a worker's heap: seconds)

    class Widget:
        def call_after_refresh(self, callback: object) -> bool:
            later.append(callback)
            return True

    pacer = FramePacer(Widget())
    for _ in range(30):
        pacer.line_drawn(LARGE_ROWS, page=10)
    assert len(later) == 1  # one request at a time
    gc.disable()
    try:
        later[0]()  # type: ignore[operator]
        assert pacer.collections == 0 and not gc.isenabled()
    finally:
        gc.enable()
    pacer.line_drawn(LARGE_ROWS - 1, page=1)
    assert len(later) == 1  # small tables never ask
    for _ in range(10):
        pacer.line_drawn(LARGE_ROWS, page=10)
    later[1]()  # type: ignore[operator]
    assert pacer.collections == 1 and collected == [1]


def test_a_growing_table_freezes_at_each_step_and_a_reload_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Rows appended page by page freeze once the table is large, then every FREEZE_STEP rows (what a
    full collection walks stays small, and a freeze keeps few leftovers for good); a new set of rows
    freezes at once; a small table never."""
    freezes: list[int] = []
    pacer = FramePacer(object())  # type: ignore[arg-type]
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(loaded))
    for loaded in range(100, LARGE_ROWS + 3 * FREEZE_STEP + 1, 100):
        pacer.rows_loaded(loaded, replaced=False)
    assert freezes == [LARGE_ROWS, LARGE_ROWS + FREEZE_STEP, LARGE_ROWS + 2 * FREEZE_STEP,
                       LARGE_ROWS + 3 * FREEZE_STEP]
    freezes.clear()
    loaded = LARGE_ROWS + 3 * FREEZE_STEP
    pacer.rows_loaded(loaded, replaced=True)
    assert freezes == [loaded]
    loaded = LARGE_ROWS - 1
    pacer.rows_loaded(loaded, replaced=True)
    assert freezes == [LARGE_ROWS + 3 * FREEZE_STEP]
