"""The tests' sandboxes start from a copy of one seeded store instead of seeding again: the tests build a
tiny sandbox hundreds of times a run (every Pilot test, every sandbox and service test), each the same
store for the same options on a `ManualClock` at the same time. Installed once by `tests/conftest.py` on
the name `create_app` calls (`labdeck.sandbox.app.build_store`); a test that calls
`labdeck.sandbox.seed.build_store` itself seeds as before (the seed's own tests).

A copy is the pickled store read back, with the caller's own clock put where the seeded store had its
clock (pickle's persistent ids), so a test that moves its clock moves its sandbox, as with a fresh seed.
Only a stopped clock makes a store that can be shared (a real clock seeds "now"), at the scales the
tests build often (`SHARED_SCALES`: tiny, and demo, a tenth as often but four times the seed); other clocks
and scales seed as before.

Each area (`Store.areas`) is pickled on its own and read back the first time the copy is asked for it: a
test touches two or three of the seventeen, and the deployments and the registry are nine tenths of a
copy's bytes (reading them all back took 20 to 50 ms a sandbox). No area holds a mutable object of
another area or of the rest of the store (`test_seeded_stores.py` checks it), so parts read back apart are
the store a fresh seed makes.
"""

from __future__ import annotations

import io
import pickle
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import labdeck.sandbox.app as sandbox_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

SHARED_SCALES = ("tiny", "demo")
_seeded: dict[tuple[str, float], _Seed] = {}
_original = sandbox_app.build_store


class _Pickler(pickle.Pickler):
    def __init__(self, file: io.BytesIO, clock: ManualClock) -> None:
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.clock = clock

    def persistent_id(self, obj: Any) -> str | None:
        return "clock" if obj is self.clock else None


class _Unpickler(pickle.Unpickler):
    def __init__(self, file: io.BytesIO, clock: ManualClock) -> None:
        super().__init__(file)
        self.clock = clock

    def persistent_load(self, pid: Any) -> Any:
        if pid != "clock":
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.clock


@dataclass(frozen=True)
class _Seed:
    store: bytes  # the seeded store, its areas left out
    areas: dict[str, bytes]  # each area on its own

    @classmethod
    def of(cls, store: Any, clock: ManualClock) -> _Seed:
        areas, store.areas = store.areas, {}
        try:
            return cls(_dumps(store, clock), {name: _dumps(area, clock) for name, area in areas.items()})
        finally:
            store.areas = areas

    def copy(self, clock: ManualClock) -> Any:
        store = _loads(self.store, clock)
        store.areas = AreasReadOnUse(self.areas, clock)
        return store


def _dumps(value: Any, clock: ManualClock) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, clock).dump(value)
    return buffer.getvalue()


def _loads(data: bytes, clock: ManualClock) -> Any:
    return _Unpickler(io.BytesIO(data), clock).load()


class AreasReadOnUse(dict[str, Any]):
    """`Store.areas` of a copy: an area is read back from its pickle the first time it is asked for; asking
    for all of them (iterating, `items`, `len`) reads back the rest."""

    def __init__(self, pickled: dict[str, bytes], clock: ManualClock) -> None:
        super().__init__()
        self._pickled = dict(pickled)
        self._clock = clock

    def _read(self, name: str) -> None:
        data = self._pickled.pop(name, None)
        if data is not None:
            super().__setitem__(name, _loads(data, self._clock))

    def _read_all(self) -> None:
        for name in list(self._pickled):
            self._read(name)

    def unread(self) -> set[str]:
        """The areas not read back yet (for the tests of this module)."""
        return set(self._pickled)

    def __getitem__(self, name: str) -> Any:
        self._read(name)
        return super().__getitem__(name)

    def get(self, name: str, default: Any = None) -> Any:  # type: ignore[override]
        self._read(name)
        return super().get(name, default)

    def __contains__(self, name: object) -> bool:
        return name in self._pickled or super().__contains__(name)

    def __setitem__(self, name: str, value: Any) -> None:
        self._pickled.pop(name, None)
        super().__setitem__(name, value)

    def __delitem__(self, name: str) -> None:
        self._read(name)
        super().__delitem__(name)

    def setdefault(self, name: str, default: Any = None) -> Any:
        self._read(name)
        return super().setdefault(name, default)

    def pop(self, name: str, *default: Any) -> Any:
        self._read(name)
        return super().pop(name, *default)

    def __iter__(self) -> Iterator[str]:
        self._read_all()
        return super().__iter__()

    def __len__(self) -> int:
        return super().__len__() + len(self._pickled)

    def keys(self) -> Any:
        self._read_all()
        return super().keys()

    def values(self) -> Any:
        self._read_all()
        return super().values()

    def items(self) -> Any:
        self._read_all()
        return super().items()

    def __eq__(self, other: object) -> bool:
        self._read_all()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        self._read_all()
        return super().__repr__()


def build_store_shared(options: SandboxOptions, clock: Any = None) -> Any:
    """`build_store`, read back from the first seed of the same options and clock time when it can be."""
    if type(clock) is not ManualClock or options.scale not in SHARED_SCALES:
        return _original(options, clock)
    key = (repr(options), clock.time())  # a dataclass: its repr names every field
    seeded = _seeded.get(key)
    if seeded is None:
        store = _original(options, clock)
        _seeded[key] = _Seed.of(store, clock)
        return store
    return seeded.copy(clock)


def install() -> None:
    """Install the shared seed, for the whole test process."""
    sandbox_app.build_store = build_store_shared  # type: ignore[assignment]
