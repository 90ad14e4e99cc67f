"""The tests' shared seed (`tests/seeded_stores.py`): a copy is the store a fresh seed makes, on the
caller's own clock, and changing one copy changes no other; its areas are read back when first asked for,
which is sound because no area shares a mutable object with another part of the store."""

from __future__ import annotations

import io
import itertools
import pickle
from datetime import date, timedelta, tzinfo
from typing import Any

import pytest

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store
from seeded_stores import SHARED_SCALES, AreasReadOnUse, build_store_shared

OPTIONS = SandboxOptions(scale="tiny", seed=7)
EACH_SCALE = pytest.mark.parametrize(
    "options", [SandboxOptions(scale=name, seed=7) for name in SHARED_SCALES], ids=SHARED_SCALES)


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


@EACH_SCALE
def test_a_copy_is_what_a_fresh_seed_makes(options: SandboxOptions) -> None:
    build_store_shared(options, ManualClock())  # the first: seeded and kept
    copy = build_store_shared(options, ManualClock())
    assert shape(copy) == shape(build_store(options, ManualClock()))


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


def mutable_objects(value: Any) -> dict[int, Any]:
    """The mutable objects `value` holds, by id (whatever pickle walks that is not a value, a class or a
    function; kept alive, so that no id is used twice)."""
    seen: dict[int, Any] = {}
    values = (str, bytes, int, float, bool, tuple, frozenset, date, timedelta, tzinfo, type, type(None),
              type(len), type(mutable_objects))

    class Walk(pickle.Pickler):
        def persistent_id(self, obj: Any) -> None:
            if not isinstance(obj, values):
                seen[id(obj)] = obj
            return None

    Walk(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return seen


@EACH_SCALE
def test_no_area_shares_a_mutable_object_with_another_part_of_the_store(options: SandboxOptions) -> None:
    store = build_store(options, ManualClock())
    parts = {name: mutable_objects(area) for name, area in store.areas.items()}
    parts["<store>"] = mutable_objects({key: value for key, value in vars(store).items() if key != "areas"})
    for name, held in parts.items():
        for other, held_too in parts.items():
            # the one object a copy puts back rather than reads back: the caller's clock
            shared = held.keys() & held_too.keys() - {id(store.clock)}
            assert name >= other or not shared, (name, other, [held[key] for key in shared][:3])


def test_an_area_is_read_back_when_first_asked_for() -> None:
    build_store_shared(OPTIONS, ManualClock())
    copy = build_store_shared(OPTIONS, ManualClock())
    areas = copy.areas
    assert isinstance(areas, AreasReadOnUse) and "registry" in areas.unread() and "registry" in areas
    registry = areas["registry"]
    assert "registry" not in areas.unread() and areas.get("registry") is registry
    assert len(areas) == len(build_store(OPTIONS, ManualClock()).areas)
    assert dict(areas.items()) and not areas.unread()
