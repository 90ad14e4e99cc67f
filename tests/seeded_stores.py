"""The tests' sandboxes start from a copy of one seeded store instead of seeding again: the tests build a
tiny sandbox hundreds of times a run (every Pilot test, every sandbox and service test), each the same
store for the same options on a `ManualClock` at the same time. Installed once by `tests/conftest.py` on
the name `create_app` calls (`labdeck.sandbox.app.build_store`); a test that calls
`labdeck.sandbox.seed.build_store` itself seeds as before (the seed's own tests).

A copy is the pickled store read back, with the caller's own clock put where the seeded store had its
clock (pickle's persistent ids), so a test that moves its clock moves its sandbox, as with a fresh seed.
Only a stopped clock makes a store that can be shared (a real clock seeds "now"); other clocks and scales
seed as before.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import labdeck.sandbox.app as sandbox_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

SHARED_SCALES = ("tiny",)
_seeded: dict[tuple[str, float], bytes] = {}
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


def build_store_shared(options: SandboxOptions, clock: Any = None) -> Any:
    """`build_store`, read back from the first seed of the same options and clock time when it can be."""
    if type(clock) is not ManualClock or options.scale not in SHARED_SCALES:
        return _original(options, clock)
    key = (repr(options), clock.time())  # a dataclass: its repr names every field
    seeded = _seeded.get(key)
    if seeded is None:
        store = _original(options, clock)
        buffer = io.BytesIO()
        _Pickler(buffer, clock).dump(store)
        _seeded[key] = buffer.getvalue()
        return store
    return _Unpickler(io.BytesIO(seeded), clock).load()


def install() -> None:
    """Install the shared seed, for the whole test process."""
    sandbox_app.build_store = build_store_shared  # type: ignore[assignment]
