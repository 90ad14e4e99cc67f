"""The tests' shared seed (`tests/seeded_stores.py`): a copy is the store a fresh seed makes, on the
caller's own clock, and changing one copy changes no other."""

from __future__ import annotations

import itertools
from typing import Any

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store
from seeded_stores import build_store_shared

OPTIONS = SandboxOptions(scale="tiny", seed=7)


def shape(value: Any) -> Any:
    """What `value` holds, as plain data (a counter as the number it would give next)."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return type(value)(shape(item) for item in value) if not isinstance(value, set | frozenset) \
            else sorted(map(repr, value))
    if isinstance(value, itertools.count):
        return repr(value)
    if hasattr(value, "__dict__") and not callable(value):
        return (type(value).__name__, shape(vars(value)))
    if hasattr(value, "__slots__"):
        return (type(value).__name__, {name: shape(getattr(value, name, None)) for name in value.__slots__})
    return value


def test_a_copy_is_what_a_fresh_seed_makes() -> None:
    build_store_shared(OPTIONS, ManualClock())  # the first: seeded and kept
    copy = build_store_shared(OPTIONS, ManualClock())
    assert shape(copy) == shape(build_store(OPTIONS, ManualClock()))


def test_a_copy_runs_on_the_callers_clock_and_stands_alone() -> None:
    clock = ManualClock()
    first = build_store_shared(OPTIONS, ManualClock())
    copy = build_store_shared(OPTIONS, clock)
    assert copy.clock is clock
    clock.advance(3600)
    assert copy.now() != first.now()
    user = next(iter(copy.users.values()))
    user.name = "changed"
    assert next(iter(build_store_shared(OPTIONS, ManualClock()).users.values())).name != "changed"


def test_a_running_clock_seeds_afresh() -> None:
    class Running(ManualClock):
        pass

    clock = Running()
    assert build_store_shared(OPTIONS, clock).clock is clock
