"""Garbage collection paced by a large table's frames (issue 16 goal 4: no pause on a keypress).

Each frame Textual draws leaves hundreds to thousands of objects in reference cycles: a `Strip` keeps
strips it derived in its own caches, and often itself (a crop or a divide that changes nothing caches
`self`). They live one frame, long enough to be promoted to the oldest generation, so only full
collections free them. Left alone, a full collection comes every ten frames or so and walks everything
piled up since (at 100,000 rows: 50 to 100 ms, inside whichever keypress set it off).

So, for a table with at least `LARGE_ROWS` rows:
- after a load (a whole set of rows, or every `FREEZE_STEP` rows appended), whatever is alive (rows,
  cells, models) moves to the permanent generation (`gc.freeze`), which full collections never walk (rows
  dropped later are still freed by reference counting);
- after a frame that drew a page of new lines, one full collection runs in idle time, once the frame is
  on screen (`call_after_refresh`): it walks one frame's garbage and the few objects alive and not frozen
  (a few ms), and the collector's counters start again, so no automatic full collection falls inside the
  next keypress.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from typing import Protocol

LARGE_ROWS = 10_000
# A large table growing page by page freezes again once this many rows came since its last freeze: what
# is alive and not frozen (what every full collection walks) stays small, and the few cyclic leftovers a
# freeze keeps for good (it does not collect first: that would walk all of them) stay few.
FREEZE_STEP = 2_000


class _Widget(Protocol):
    def call_after_refresh(self, callback: Callable[[], object]) -> bool: ...


class FramePacer:
    """Counts the lines a widget drew anew; after a page of them, one full collection once the frame is
    drawn (never while the collector is switched off, e.g. while a listing is parsed)."""

    def __init__(self, widget: _Widget) -> None:
        self._widget = widget
        self._drawn = 0
        self._pending = False
        self._frozen_at = 0  # how many rows were loaded at the last freeze
        self.collections = 0  # how many this pacer ran (for tests and benchmarks)
        # From how many rows the pacing applies: a list read on demand (`tui/list_feed.py`) paces from
        # its first row, since its pages come and go for as long as the operator scrolls.
        self.large_rows = LARGE_ROWS

    def rows_loaded(self, loaded: int, *, replaced: bool) -> None:
        """The table now holds `loaded` rows (`replaced`: a whole new set, else rows appended)."""
        if loaded < self.large_rows:
            self._frozen_at = 0
            return
        if replaced or not self._frozen_at or loaded - self._frozen_at >= FREEZE_STEP:
            gc.freeze()
            self._frozen_at = loaded

    def line_drawn(self, loaded: int, page: int) -> None:
        """A line of a table of `loaded` rows was drawn anew; `page` is how many lines the table shows."""
        if loaded < self.large_rows:
            return
        self._drawn += 1
        if self._drawn >= page and not self._pending:
            self._pending = self._widget.call_after_refresh(self._collect)

    def _collect(self) -> None:
        self._pending = False
        self._drawn = 0
        if gc.isenabled():
            gc.collect()
            self.collections += 1
