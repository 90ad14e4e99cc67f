"""The large scale's issues are built once, in a background thread when the app is created; a request
arriving meanwhile waits for the whole build (never a partial listing)."""

from __future__ import annotations

import threading

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store
from labdeck.sandbox.seed.issues import AREA, IssuesData, build_in_background, issues_data


def test_a_caller_waits_for_the_background_build() -> None:
    store = build_store(SandboxOptions(scale="tiny"), ManualClock())
    data = store.area(AREA, IssuesData)
    started, release, runs = threading.Event(), threading.Event(), []

    def build() -> None:
        started.set()
        release.wait(10)
        issues_data(store)  # the build may read the area itself (no deadlock)
        runs.append(1)

    data.pending = build
    build_in_background(store)
    assert started.wait(10)
    got: list[int] = []
    reader = threading.Thread(target=lambda: got.append(len(runs) if issues_data(store) else -1))
    reader.start()
    reader.join(0.2)
    assert reader.is_alive() and not got  # waiting for the build, not reading half of it
    release.set()
    reader.join(10)
    assert got == [1] and runs == [1] and data.pending is None and not data.building
    issues_data(store)
    assert runs == [1]  # built once
