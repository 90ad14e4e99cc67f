"""Fixtures of the TUI tests. The helpers they are built from live in importable modules (a conftest is not
imported by name): `snapshot_apps` (`make_app`, the one `settle`, `jump_to`, `press_for`, ...),
`tiny_sandbox` (the one sandbox harness) and the transports of failure tests (`failing`, `gate`,
`lose_answers`).

- `tiny_sandbox`: a tiny sandbox in-process on a stopped clock, its `store` at hand for the checks.
- `sandbox_app`: a `LabdeckApp` signed in as root against `tiny_sandbox`, not yet running.
"""

from __future__ import annotations

import pytest
from snapshot_apps import make_app
from tiny_sandbox import Sandbox

from labdeck.tui.app import LabdeckApp


@pytest.fixture
def tiny_sandbox() -> Sandbox:
    return Sandbox()


@pytest.fixture
def sandbox_app(tiny_sandbox: Sandbox) -> LabdeckApp:
    return make_app(transport_factory=tiny_sandbox.factory)
