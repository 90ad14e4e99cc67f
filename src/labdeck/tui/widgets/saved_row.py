"""Where a list's cursor goes after a form saved one of its rows: `SavedRow`.

A form that adds rows (`key` None) or edits one (`key`: the edited row's identity) is opened from a list
(`writes.open_write_form`); the list remembers which rows it held then (`before`). Once the write is done,
the list has focus and, when its rows next arrive (the re-read after the save), the cursor goes to the saved
row: the edited row if it is still there, else the first row that was not there before (the new one, or the
edited one whose identity the edit changed: a CI variable given another environment scope). Whatever the
sort or filter puts where, the cursor follows the row, never an index.

The move is dropped when the operator moves the cursor or acts on a row first (`ResourceTable.keep_cursor`):
a row action reads the row the cursor shows when its key is pressed, and the cursor then stays under that
row (a confirmation that names one row while the cursor jumps to another would be worse than no move).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class SavedRow:
    """The row a form saves into a list: the edited row's key (None: the form adds rows) and the keys of
    the rows the list held before the save."""

    key: Hashable | None
    before: frozenset[Hashable]

    def also_before(self, keys: frozenset[Hashable]) -> SavedRow:
        """The same, with more rows known to be there before the save (a list that was still loading when
        the form opened holds them when it closes)."""
        return SavedRow(self.key, self.before | keys)

    def index_in(self, keys: Sequence[Hashable]) -> int | None:
        """The position of the saved row among `keys` (the visible rows' keys, in order), or None."""
        if self.key is not None:
            try:
                return keys.index(self.key)
            except ValueError:
                pass  # the edit changed the row's identity: it is the row that was not there before
        before = self.before
        return next((at for at, key in enumerate(keys) if key not in before), None)
