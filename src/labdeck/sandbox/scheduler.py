"""Scheduled completions: how the sandbox's asynchronous operations finish after a delay.

An area route starts an operation (export, import, fork, bulk tag delete, repository delete) with
`store.scheduler.schedule(key, action)`; the action runs once `async_delay` seconds have passed on the store's
clock. Due actions run at the start of each request (`run_due()`), so nothing runs in the background and the
outcome is deterministic for a given clock. Clients see the operation pending until then, and must poll.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Literal

from labdeck.sandbox.clock import Clock

OpState = Literal["none", "scheduled", "finished", "failed"]


@dataclass(order=True)
class Scheduled:
    """One pending completion; ordered by due time, then by creation."""

    due_at: float
    seq: int
    key: Hashable = field(compare=False)
    action: Callable[[], object] | None = field(compare=False, default=None)
    state: OpState = field(compare=False, default="scheduled")
    error: str | None = field(compare=False, default=None)


class Scheduler:
    """Completions keyed by an operation key (any hashable, e.g. `("group_export", 12)`)."""

    def __init__(self, clock: Clock, delay: float = 1.0) -> None:
        self.clock = clock
        self.delay = delay
        self._heap: list[Scheduled] = []
        self._by_key: dict[Hashable, Scheduled] = {}
        self._seq = itertools.count()

    def schedule(self, key: Hashable, action: Callable[[], object] | None = None,
                 delay: float | None = None) -> Scheduled:
        """Start (or restart) the operation `key`; `action` runs when it completes."""
        wait = self.delay if delay is None else delay
        item = Scheduled(self.clock.time() + wait, next(self._seq), key, action)
        old = self._by_key.get(key)
        if old is not None and old.state == "scheduled":
            old.state = "none"  # superseded: the heap entry is skipped when it comes up
        self._by_key[key] = item
        heapq.heappush(self._heap, item)
        return item

    def run_due(self) -> int:
        """Complete every operation whose time has come; return how many completed."""
        now = self.clock.time()
        done = 0
        while self._heap and self._heap[0].due_at <= now:
            item = heapq.heappop(self._heap)
            if item.state != "scheduled" or self._by_key.get(item.key) is not item:
                continue
            try:
                if item.action is not None:
                    item.action()
                item.state = "finished"
            except Exception as exc:  # an area's completion failed: record it, keep serving
                item.state = "failed"
                item.error = str(exc)
            done += 1
        return done

    def state(self, key: Hashable) -> OpState:
        """`none` (never started or cancelled), `scheduled`, `finished` or `failed`."""
        self.run_due()
        item = self._by_key.get(key)
        return "none" if item is None else item.state

    def get(self, key: Hashable) -> Scheduled | None:
        self.run_due()
        return self._by_key.get(key)

    def cancel(self, key: Hashable) -> None:
        item = self._by_key.pop(key, None)
        if item is not None and item.state == "scheduled":
            item.state = "none"
