"""Listings of any size without building them: the scale sandbox's arithmetic (issue 25).

A virtual record is its index `k` (0 .. n-1, id `k + 1`). Everything a filter or an order can look at is a
function of `k % PERIOD` (its residue): titles, states, labels, names, authors. So any filter is a set of
residues, found once by testing the `PERIOD` residues, and the matching records of `[lo, hi)` are
`q * PERIOD + r` for those residues: their count and the record at any position are O(log PERIOD), whatever
the size (1,000,000 or 100,000,000). Orders are either by `k` (ids, creation times: those grow with `k`)
or by a key of the residue (title, name, username), ties broken by `k`, as GitLab breaks them by id.

Pure: no Starlette, no store; the routes serve their listings from these sequences.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterator
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

PERIOD = 4096
_MASK = (1 << 64) - 1


def mix(seed: int, value: int) -> int:
    """A 64-bit hash of `(seed, value)` (splitmix64's finaliser): the source of every virtual attribute."""
    z = (value * 0x9E3779B97F4A7C15 + seed * 0xBF58476D1CE4E5B9 + 0x94D049BB133111EB) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def _below(residues: list[int], k: int) -> int:
    """How many `q * PERIOD + r` (r in `residues`, sorted) are below `k` (k >= 0)."""
    q, rem = divmod(k, PERIOD)
    return q * len(residues) + bisect_left(residues, rem)


@dataclass(frozen=True)
class Group:
    """Records with these residues (sorted), in `k` order: one sort key's records."""

    residues: list[int]

    def count(self, lo: int, hi: int) -> int:
        return max(0, _below(self.residues, hi) - _below(self.residues, lo)) if self.residues else 0

    def at(self, lo: int, j: int) -> int:
        """The `j`-th record (ascending `k`) at or after `lo`."""
        m = len(self.residues)
        j += _below(self.residues, lo)
        return (j // m) * PERIOD + self.residues[j % m]


class Sequence:
    """The records of `[lo, hi)` whose residue passes a filter, in order: groups (by a residue key, or one
    group when ordering by `k`), each in `k` order; `descending` reverses the whole sequence."""

    def __init__(self, groups: list[Group], lo: int, hi: int, *, descending: bool) -> None:
        self.groups = [g for g in groups if g.residues]
        self.lo, self.hi = max(0, lo), max(0, hi)
        self.descending = descending
        counts = [g.count(self.lo, self.hi) for g in self.groups]
        self._starts = [0, *accumulate(counts)]
        self.total = self._starts[-1]

    def at(self, position: int) -> int:
        """The record `k` at `position` (0 .. total-1)."""
        if not 0 <= position < self.total:
            raise IndexError(position)
        if self.descending:
            position = self.total - 1 - position
        g = bisect_right(self._starts, position) - 1
        return self.groups[g].at(self.lo, position - self._starts[g])

    def window(self, start: int, count: int) -> list[int]:
        """The records at positions `start .. start+count-1` (fewer at the end)."""
        return [self.at(i) for i in range(max(0, start), min(self.total, start + count))]


def residues(test: Callable[[int], bool]) -> list[int]:
    """The residues whose records pass `test(r)` (sorted)."""
    return [r for r in range(PERIOD) if test(r)]


def grouped(matching: list[int], key: Callable[[int], Any] | None) -> list[Group]:
    """One group in `k` order (`key` None), or one group per key value, in ascending key order."""
    if key is None:
        return [Group(matching)]
    by_key: dict[Any, list[int]] = {}
    for r in matching:
        by_key.setdefault(key(r), []).append(r)
    return [Group(by_key[value]) for value in sorted(by_key)]


class SequenceCache:
    """The last few filters' residue groups (a filter is tested on `PERIOD` residues once)."""

    def __init__(self, size: int = 64) -> None:
        self.size = size
        self._groups: dict[Hashable, list[Group]] = {}

    def groups(self, key: Hashable, build: Callable[[], list[Group]]) -> list[Group]:
        found = self._groups.pop(key, None)
        if found is None:
            found = build()
        self._groups[key] = found  # most recent last
        while len(self._groups) > self.size:
            self._groups.pop(next(iter(self._groups)))
        return found


def words(n: int, seed: int, *lists: tuple[str, ...]) -> Iterator[str]:
    """One word of each list, chosen by a hash of `n` (a residue) and `seed`."""
    h = mix(seed, n)
    for i, options in enumerate(lists):
        yield options[(h >> (8 * i)) % len(options)]
