"""Which lists a piece of work changed: the cache families (`domain.catalogue.changed_families`) of the
successful changes sent while a `watching()` block runs, in its task and the tasks it starts.

The client tells the list cache of every successful change (`ListCache.changed`), which notes the families
here; a bulk task or a single-row action of the TUI watches its own changes, so that when it is done it can
re-read every open list that shows them, whatever endpoint the change went through.
Watches nest: a change is seen by every block it runs in. Changes sent by other tasks are not seen.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

_WATCHES: ContextVar[tuple[set[str], ...]] = ContextVar("labdeck_changes_seen", default=())


@contextmanager
def watching() -> Iterator[set[str]]:
    """The families changed while the block runs (filled as the changes succeed)."""
    found: set[str] = set()
    token = _WATCHES.set((*_WATCHES.get(), found))
    try:
        yield found
    finally:
        _WATCHES.reset(token)


def note(families: Iterable[str]) -> None:
    """A change altered `families`: every watch of the current task sees them."""
    watches = _WATCHES.get()
    if watches:
        changed = set(families)
        for found in watches:
            found.update(changed)
