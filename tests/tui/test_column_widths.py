"""The one column-width rule (`column_widths.py`, pure): widths from content and room, the key column cut
last, lowest-priority columns dropped first, nothing cut while room is left, the line always fitting; and
the renderers leaving dropped columns out."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from labdeck.tui.widgets.column_widths import (
    MARKER_WIDTH,
    Want,
    column_at,
    essential_room,
    grow,
    key_index,
    measure,
    plan_widths,
    sample_indices,
    total_width,
    wants,
)
from labdeck.tui.widgets.table_columns import Column
from labdeck.tui.widgets.table_render import header_segments, row_segments


def test_measure_takes_label_and_widest_cell_and_grow_widens() -> None:
    columns = [Column("a", "A"), Column("due", "Due", width=10), Column("c", "Labels")]
    natural = measure(columns, [("x" * 100, "2026-01-01", "bug"), ("日本", "", "priority::low, bug")])
    assert natural == [100, 10, 18]
    assert grow(natural, [("y", "", "z" * 30)]) == [100, 10, 30]
    assert len(sample_indices(100_000)) <= 200 and list(sample_indices(5)) == [0, 1, 2, 3, 4]


def test_room_enough_nothing_is_cut_and_the_last_column_fills() -> None:
    wanted = [Want(30, priority=5), Want(10, fixed=10), Want(16, floor=6)]
    widths = plan_widths(wanted, 100)
    assert widths[:2] == [30, 10] and widths[2] >= 16 and total_width(widths) == 100


def test_a_path_longer_than_the_soft_cap_is_not_cut_with_room_to_spare() -> None:
    path = Want(58, floor=20, cap=40, priority=9)
    state = Want(16, floor=8, cap=12)  # "pending approval" is wider than its cap: still whole with room
    widths = plan_widths([path, state, Want(10, fixed=10)], 160)
    assert widths[0] >= 58 and widths[1] >= 16 and widths[2] == 10


def test_the_key_whole_then_every_column_readable_then_room_by_priority() -> None:
    reference = Want(18, floor=8, priority=5)
    title = Want(60, floor=12, priority=10)
    labels = Want(30, floor=10, priority=3)
    assert plan_widths([reference, title, labels], 80) == [17, 60, 0]  # no room for labels' floor
    assert plan_widths([reference, title, labels], 90) == [11, 60, 15]  # both readable (half their want)
    assert plan_widths([reference, title, labels], 100) == [18, 60, 18]  # the more useful whole first
    assert plan_widths([reference, title, labels], 130) == [18, 60, 48]  # all whole, the last fills


def test_at_80_columns_the_least_useful_are_dropped_first() -> None:
    columns = [Column("ref", "Reference", min_width=14, priority=6), Column("title", "Title", priority=10),
               Column("state", "State", width=8, priority=7),
               Column("labels", "Labels", min_width=12, priority=5),
               Column("due", "Due", width=10, priority=2), Column("updated", "Updated", width=10, priority=1),
               Column("milestone", "Milestone", min_width=9, priority=3)]
    natural = [28, 35, 8, 25, 10, 10, 12]
    assert plan_widths(wants(columns, natural), 80) == [19, 35, 8, 13, 0, 0, 0]
    assert plan_widths(wants(columns, natural), 60) == [0, 35, 8, 13, 0, 0, 0]  # a narrower one fits
    assert plan_widths(wants(columns, natural), 120) == [27, 35, 8, 13, 10, 10, 9]
    assert plan_widths(wants(columns, natural), 140) == [28, 35, 8, 25, 10, 10, 16]
    assert 0 not in plan_widths(wants(columns, natural), 100)[:5]  # updated is the first to go


def test_the_key_leaves_the_essential_columns_their_floors() -> None:
    """Issue 34: `:log` at 80 columns showed its path alone; the path (the key) now leaves room for
    method, status and time, which are essential, before it takes its whole content."""
    path = Want(120, floor=20, priority=10)
    method, status, time = (Want(6, fixed=6, priority=8, essential=True),
                            Want(6, fixed=6, priority=9, essential=True), Want(8, fixed=8, priority=6,
                                                                               essential=True))
    error = Want(30, floor=5, priority=4)
    assert plan_widths([time, method, status, error, path], 79) == [8, 6, 6, 0, 54]
    assert plan_widths([time, method, status, error, path], 200)[3:] == [30, 144]  # room: all whole
    assert plan_widths([time, method, status, error, path], 45) == [8, 6, 6, 0, 20]  # the key at its floor
    assert plan_widths([time, method, status, error, path], 40) == [0, 6, 6, 0, 24]  # no room for all three
    assert plan_widths([Want(120, floor=20, priority=10), Want(6, fixed=6, priority=1)], 79) == [77, 0]


def test_an_essential_column_is_not_dropped_for_a_more_useful_one() -> None:
    title = Want(60, floor=20, priority=10)
    state = Want(8, fixed=8, priority=2, essential=True)
    labels = Want(40, floor=10, priority=5)  # more useful than the state, but not essential
    assert plan_widths([title, state, labels], 45) == [34, 8, 0]
    assert plan_widths([title, labels, Want(30, floor=20, priority=4, essential=True)], 56)[2] >= 20


def test_equal_priorities_keep_the_first_column_and_drop_from_the_right() -> None:
    wanted = [Want(20, floor=20), Want(20, floor=20), Want(20, floor=20), Want(20, floor=20)]
    assert key_index(wanted) == 0
    assert plan_widths(wanted, 50) == [20, 27, 0, 0]  # the last one shown fills the line


def test_only_the_key_left_gives_way_to_the_room() -> None:
    assert plan_widths([Want(50, floor=30, priority=1), Want(10, fixed=10)], 20) == [18, 0]
    assert plan_widths([Want(4), Want(4)], 0) == [4, 4]  # not laid out yet: content up to the cap


def test_renderers_and_clicks_skip_dropped_columns() -> None:
    columns = [Column("a", "Name"), Column("b", "Age"), Column("c", "City")]
    header = "".join(s.text for s in header_segments(columns, [6, 0, 5], None, False))
    assert header == "  Name   City "
    row = "".join(s.text for s in row_segments(("ann", "42", "Oslo"), columns, [6, 0, 5], None, False,
                                                Console(width=80)))
    assert row == "  ann    Oslo " and "42" not in row
    assert column_at([6, 0, 5], MARKER_WIDTH + 7) == 2


def test_a_column_that_says_how_to_fit_is_cut_its_own_way() -> None:
    """`Column.fitted` (issue 34): the cell for a width its content exceeds; content that fits is drawn as
    it is, and a column without it is cut at its end."""
    def keep_end(row: tuple[str, str], width: int) -> str:
        return "…" + row[0][len(row[0]) - width + 1:]

    columns = [Column("a", "Path", fitted=keep_end), Column("b", "Other")]
    row = ("group/project#12", "a long value")
    drawn = "".join(s.text for s in row_segments(row, columns, [8, 6], row, False, Console(width=80)))
    assert drawn == "  …ject#12 a lon…"
    whole = "".join(s.text for s in row_segments(row, columns, [16, 12], row, False, Console(width=80)))
    assert whole == "  group/project#12 a long value"


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[Want], int]:
    count = draw(st.integers(1, 8))
    wanted = []
    for _ in range(count):
        fixed = draw(st.one_of(st.none(), st.integers(1, 20)))
        wanted.append(Want(natural=draw(st.integers(0, 120)), floor=draw(st.integers(1, 30)),
                           cap=draw(st.integers(1, 60)), fixed=fixed, priority=draw(st.integers(0, 5)),
                           essential=draw(st.booleans())))
    return wanted, draw(st.integers(1, 300))


def _admitted(want: Want, is_key: bool, available: int, essential: int = 0) -> int:
    """What a column took when it was let in: the key its content (or the room, less the `essential`
    columns' floors and separators), the others their floor."""
    if want.fixed is not None:
        return want.fixed
    if is_key:
        target = want.natural if want.cap is None else min(want.natural, want.cap)
        target = max(want.low, min(target, available - MARKER_WIDTH - essential))
        return max(1, min(target, available - MARKER_WIDTH))
    return want.low


def _whole(want: Want, available: int) -> int:
    """A column's content up to its cap (its floor at least): narrower than this, it is cut."""
    if want.fixed is not None:
        return want.fixed
    default_cap = min(40, max(8, (available - MARKER_WIDTH) // 3))
    return max(want.low, min(want.natural, want.cap if want.cap is not None else default_cap))


@given(tables())
def test_plan_properties(table: tuple[list[Want], int]) -> None:
    wanted, available = table
    widths = plan_widths(wanted, available)
    key = key_index(wanted)
    others = sorted((i for i in range(len(wanted)) if i != key),
                    key=lambda i: (not wanted[i].essential, -wanted[i].priority, i))
    used = total_width(widths)
    shown = [i for i in others if widths[i] > 0]
    dropped = [i for i in others if widths[i] == 0]
    essentials = [i for i in others if wanted[i].essential]
    floors = essential_room(wanted, others, available - wanted[key].low)
    key_width = _admitted(wanted[key], True, available, floors)
    assert widths[key] >= key_width  # the key: never dropped, whole when it (and the essentials) fit
    if widths[key] < _admitted(wanted[key], True, 10_000):
        assert all(wanted[i].essential for i in shown)  # cut only for the essential columns or the room
    if wanted[key].fixed is None and MARKER_WIDTH + wanted[key].low + sum(1 + wanted[i].low
                                                                          for i in essentials) <= available:
        assert all(widths[i] > 0 for i in essentials)  # every essential column shown when its floor fits
    if available >= MARKER_WIDTH + (wanted[key].fixed or 1):
        assert used <= available  # the line fits whenever the key alone can
    unreadable = [i for i in shown if widths[i] < max(wanted[i].low, (_whole(wanted[i], available) + 1) // 2)]
    if unreadable not in ([], shown[-1:]):  # only the least useful shown column may be under half its want,
        assert all(wanted[i].essential for i in shown)  # unless only essential ones are left
    assert all(widths[i] >= wanted[i].low for i in shown)  # and never below its floor
    if dropped:  # the most useful dropped one could not be shown, even at its floor, beside readable ones
        halves = [max(wanted[i].low, (_whole(wanted[i], available) + 1) // 2) for i in shown]
        assert total_width([key_width, *halves, wanted[dropped[0]].low]) > available
    if used <= available and (wanted[max([key, *shown])].fixed is None or wanted[key].fixed is None):
        assert used == available  # the line is filled
    if used < available:  # room left: nothing is cut
        assert all(widths[i] >= wanted[i].natural or wanted[i].fixed is not None for i in [key, *shown])


@pytest.mark.drawn
async def test_a_value_the_sample_missed_widens_its_column_once_on_screen() -> None:
    from textual.app import App, ComposeResult

    from labdeck.tui.widgets.resource_table import ResourceTable

    rows = [(str(i), "x", "y") for i in range(10_000)]
    rows[5_001] = ("5001", "a much longer value here", "y")  # the 200-row sample takes every 50th row
    columns = [Column("n", "N", priority=1), Column("v", "Value"), Column("w", "W")]

    class Host(App[None]):
        def compose(self) -> ComposeResult:
            yield ResourceTable(columns, rows)

    async with Host().run_test(size=(80, 20)) as pilot:
        table = pilot.app.query_one(ResourceTable)
        await pilot.pause()
        assert table.column_widths["v"] < 24  # room to spare, but nothing on screen needs it yet
        table.move_cursor(5_001)
        await pilot.pause()
        assert table.column_widths["v"] >= 24
        cursor_line = table.line_text(5_001 - round(table.scroll_y) + 1)
        assert "a much longer value here" in cursor_line  # not cut while room is left
