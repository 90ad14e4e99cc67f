"""The scale sandbox's arithmetic (`sandbox/virtual.py`) against brute force: counts and the record at any
position of a filtered, ordered range equal those of listing every record."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from labdeck.sandbox.virtual import PERIOD, Sequence, grouped


def _brute(n: int, lo: int, hi: int, chosen: set[int], key: dict[int, int] | None,
           descending: bool) -> list[int]:
    rows = [k for k in range(max(lo, 0), min(hi, n)) if k % PERIOD in chosen]
    rows.sort(key=(lambda k: (key[k % PERIOD], k)) if key is not None else (lambda k: k))
    return rows[::-1] if descending else rows


@settings(max_examples=60, deadline=None)
@given(n=st.integers(0, 3 * PERIOD + 50),
       bounds=st.tuples(st.integers(0, 4 * PERIOD), st.integers(0, 4 * PERIOD)),
       chosen=st.sets(st.integers(0, PERIOD - 1), max_size=40), keyed=st.booleans(), descending=st.booleans())
def test_sequence_matches_brute_force(n: int, bounds: tuple[int, int], chosen: set[int], keyed: bool,
                                      descending: bool) -> None:
    lo, hi = min(bounds), max(bounds)
    key = {r: r % 5 for r in chosen} if keyed else None
    sequence = Sequence(grouped(sorted(chosen), key.__getitem__ if key else None), lo, min(hi, n),
                        descending=descending)
    expected = _brute(n, lo, hi, chosen, key, descending)
    assert sequence.total == len(expected)
    assert sequence.window(0, len(expected) + 5) == expected
    if expected:
        middle = len(expected) // 2
        assert sequence.at(middle) == expected[middle]


def test_a_million_records_cost_no_more_than_a_few() -> None:
    every = list(range(PERIOD))
    sequence = Sequence(grouped(every, None), 0, 1_000_000, descending=True)
    assert sequence.total == 1_000_000
    assert sequence.window(999_998, 5) == [1, 0]
    assert sequence.at(0) == 999_999
