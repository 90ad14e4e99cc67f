"""Benchmark of ResourceTable against the budgets in docs/design.md (run on demand, not by pytest):

    .venv/bin/python tests/bench/bench_resource_table.py [--rows 100000] [--datatable-rows 20000]

Headless (`App.run_test`), 6 columns. "frame" figures run from the start of the operation to the last line
rendered for the next frame; "sync" is the synchronous work alone (the operation plus rendering every
visible line by hand). Textual's stock DataTable is loaded the same way for comparison (fewer rows by
default, since 100,000 rows take many seconds).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))

from textual.app import App, ComposeResult
from textual.containers import Container
from textual.widgets import DataTable

from labdeck.tui.widgets.resource_table import Column, ResourceTable

BUDGETS = {"load": 500.0, "filter": 50.0, "page down": 16.0}
WORDS = ("login crash slow docs typo button misaligned export import registry tag cleanup deploy runner "
         "pipeline cache timeout permission group member variable token webhook").split()


@dataclass(frozen=True)
class Issue:
    id: int
    reference: str
    title: str
    state: str
    author: str
    updated: str


def make_rows(count: int, seed: int = 1) -> list[Issue]:
    rnd = random.Random(seed)
    rows = []
    for i in range(count):
        title = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 12))).capitalize()
        rows.append(Issue(
            i, f"group-{i % 97}/project-{i % 1013}#{i}", title, rnd.choice(("opened", "closed")),
            f"user{rnd.randint(1, 5000)}",
            f"2026-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}T10:00:00Z",
        ))
    return rows


def cells(row: Issue) -> tuple[str, ...]:
    """One cells function for the whole row (`--cells-function`: the path screens took before columns said
    their own cells)."""
    return (str(row.id), row.reference, row.title, row.state, row.author, row.updated)


# each column says its own cell, as every screen's columns do
COLUMNS = [
    Column("id", "ID", align="right", sort_key=lambda r: r.id, text=lambda r: str(r.id)),
    Column("reference", "Reference", text=lambda r: r.reference),
    Column("title", "Title", text=lambda r: r.title),
    Column("state", "State", text=lambda r: r.state),
    Column("author", "Author", text=lambda r: r.author),
    Column("updated", "Updated", text=lambda r: r.updated),
]


class TimedTable(ResourceTable):
    """Records when it last rendered a line (the end of a frame, for our purposes): wall clock, and this
    thread's CPU clock (which a busy machine disturbs much less)."""

    last_render = 0.0
    last_render_cpu = 0.0
    render_count = 0

    def render_line(self, y: int) -> Any:
        strip = super().render_line(y)
        TimedTable.last_render = time.perf_counter()
        TimedTable.last_render_cpu = time.thread_time()
        TimedTable.render_count += 1
        return strip


class BenchApp(App[None]):
    def compose(self) -> ComposeResult:
        yield Container(id="host")


def _sync(table: ResourceTable, action: Callable[[], object]) -> float:
    """Milliseconds for the action plus rendering every visible line by hand."""
    start = time.perf_counter()
    action()
    _render_visible(table)
    return (time.perf_counter() - start) * 1000


async def _frame(pilot: Any, action: Callable[[], object]) -> float:
    """Milliseconds from the action to the last line the app rendered for its next frame."""
    await pilot.pause()
    before = TimedTable.render_count
    start = time.perf_counter()
    action()
    await pilot.pause()
    if TimedTable.render_count == before:
        await pilot.pause(0.05)
    return (TimedTable.last_render - start) * 1000


def _render_visible(table: ResourceTable) -> None:
    for y in range(table.size.height):
        table.render_line(y)


def _summary(values: list[float], digits: int = 1) -> str:
    return f"{statistics.median(values):.{digits}f} / {max(values):.{digits}f} ms"


async def bench_resource_table(count: int, size: tuple[int, int],
                               cells_function: bool = False) -> dict[str, str]:
    rows = make_rows(count)
    results: dict[str, str] = {}
    app = BenchApp()
    async with app.run_test(size=size) as pilot:
        host = app.query_one("#host")
        start = time.perf_counter()
        table = TimedTable(COLUMNS, rows, cells=cells if cells_function else None, row_key=lambda r: r.id)
        await host.mount(table)
        table.focus()
        await pilot.pause()
        results["load + first paint"] = f"{(TimedTable.last_render - start) * 1000:.0f} ms"

        typed = ["login c"[:n] for n in range(1, 8)] + ["", "deploy", "zzz", ""]
        syncs = [_sync(table, lambda t=text: table.set_filter(t)) for text in typed]
        await pilot.pause()
        frames = [await _frame(pilot, lambda t=text: table.set_filter(t)) for text in ["x", *typed]]
        results["filter keystroke: sync (median / max)"] = _summary(syncs)
        results["filter keystroke: to next frame (median / max)"] = _summary(frames)

        syncs = [_sync(table, table.action_page_down) for _ in range(15)]
        frames = [await _frame(pilot, table.action_page_down) for _ in range(15)]
        results["page down: sync (median / max)"] = _summary(syncs, 2)
        results["page down: to next frame (median / max)"] = _summary(frames, 2)

        for label, column, reverse in (("sort by title (first time: sort keys computed)", "title", False),
                                       ("sort by title, reversed (first time)", "title", True),
                                       ("sort by title again (permutation cached)", "title", False),
                                       ("sort by id (a sort_key function)", "id", False)):
            start = time.perf_counter()
            table.sort_by(column, reverse=reverse)
            _render_visible(table)
            results[label] = f"{(time.perf_counter() - start) * 1000:.0f} ms"
            await pilot.pause()
        start = time.perf_counter()
        table.action_last()
        _render_visible(table)
        results["end (G): sync"] = f"{(time.perf_counter() - start) * 1000:.2f} ms"
    return results


async def bench_datatable(count: int, size: tuple[int, int]) -> str:
    rows = [cells(r) for r in make_rows(count)]
    app = BenchApp()
    async with app.run_test(size=size) as pilot:
        start = time.perf_counter()
        table: DataTable[str] = DataTable()
        await app.query_one("#host").mount(table)
        table.add_columns(*(c.label for c in COLUMNS))
        table.add_rows(rows)
        await pilot.pause()
        await pilot.pause()
        return f"{(time.perf_counter() - start) * 1000:.0f} ms"


class GcPauses:
    """Collects the durations of full (generation 2) garbage collections, wherever they run (inside a
    keypress or in idle time): they explain the max figures. `cpu` holds the same pauses in CPU time."""

    def __init__(self) -> None:
        self.pauses: list[float] = []
        self.cpu: list[float] = []
        self._start = self._start_cpu = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if info["generation"] != 2:
            return
        if phase == "start":
            self._start, self._start_cpu = time.perf_counter(), time.thread_time()
        else:
            self.pauses.append((time.perf_counter() - self._start) * 1000)
            self.cpu.append((time.thread_time() - self._start_cpu) * 1000)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--datatable-rows", type=int, default=20_000)
    parser.add_argument("--width", type=int, default=160)
    parser.add_argument("--height", type=int, default=50)
    parser.add_argument("--cells-function", action="store_true",
                        help="one cells function for the row instead of the columns' own texts")
    args = parser.parse_args()
    size = (args.width, args.height)
    pauses = GcPauses()
    gc.callbacks.append(pauses)
    results = asyncio.run(bench_resource_table(args.rows, size, args.cells_function))
    gc.callbacks.remove(pauses)
    results["full GC pauses during the run (count, max)"] = (
        f"{len(pauses.pauses)}, {max(pauses.pauses, default=0):.0f} ms")
    if args.datatable_rows:
        key = f"stock DataTable: {args.datatable_rows:,} rows add_rows + first paint"
        results[key] = asyncio.run(bench_datatable(args.datatable_rows, size))
    print(f"ResourceTable, {args.rows:,} rows x {len(COLUMNS)} columns, terminal {size[0]}x{size[1]}")
    print(f"budgets: load < {BUDGETS['load']:.0f} ms, filter < {BUDGETS['filter']:.0f} ms, "
          f"page down < {BUDGETS['page down']:.0f} ms")
    width = max(len(k) for k in results)
    for key, value in results.items():
        print(f"  {key:<{width}}  {value}")


if __name__ == "__main__":
    main()
