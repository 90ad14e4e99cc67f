"""The one sandbox harness of the Pilot tests: a tiny sandbox in-process (`asgi`, its `store`) and the
transport factory that `make_app(transport_factory=...)` reaches it with. The harnesses of single areas
(the project view's flaky one, the registry's known repository, the deployments data) extend it.
`conftest.py` hands one to a test as the `tiny_sandbox` fixture."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import httpx

from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import Clock, ManualClock
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "acme/platform/api-gateway"


class Sandbox:
    """A tiny sandbox (`options` are `SandboxOptions` fields) on `clock`: a stopped `ManualClock` unless
    `real_clock` (then forks and other asynchronous operations finish after `async_delay` real seconds)."""

    def __init__(self, *, clock: Clock | None = None, real_clock: bool = False, **options: Any) -> None:
        if clock is None and not real_clock:
            clock = ManualClock()
        self.asgi = create_app(SandboxOptions(**{"scale": "tiny", **options}), clock=clock)
        self.store = self.asgi.state.store

    def factory(self, settings: Any) -> httpx.AsyncBaseTransport:
        """The transport of an app's session (one per `make_app`; every one reaches this sandbox)."""
        return httpx.ASGITransport(self.asgi)

    def now(self) -> datetime:
        return self.store.now()  # type: ignore[no-any-return]

    def project(self, path: str = GATEWAY) -> Any:
        """The project at `path` as the API's model (what a screen is opened with)."""
        from labdeck.api.models.projects import Project

        record = self.store.project_by_path(path)
        return Project(id=record.id, name=record.name, path=record.path, path_with_namespace=path,
                       name_with_namespace=record.name_with_namespace, default_branch="main")
