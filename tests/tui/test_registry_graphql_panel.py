"""Pilot: the tags screen and the cleanup panel read tag details through GraphQL when the instance has it,
and by REST when `/api/graphql` answers 404, with the same preview either way."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from snapshot_apps import make_app
from test_registry_screen import SIZE, Sandbox, open_tags, text, type_into

from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen


class WithoutGraphQL(httpx.AsyncBaseTransport):
    """The sandbox behind a proxy that knows no `/api/graphql` (404, as an instance without GraphQL)."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/graphql":
            return httpx.Response(404, json={"message": "404 Not Found"})
        return await self.inner.handle_async_request(request)


@pytest.mark.parametrize("graphql", [True, False])
async def test_cleanup_panel_with_graphql_on_and_off(graphql: bool) -> None:
    sandbox = Sandbox()

    def factory(settings: Any) -> httpx.AsyncBaseTransport:
        inner = sandbox.factory(settings)
        return inner if graphql else WithoutGraphQL(inner)

    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tags(pilot, sandbox)
        title = text(screen, "#registry-tags-title")
        assert "7 tags" in title and ("read by graphql" if graphql else "read by rest") in title
        log = [f"{e.method} {e.path}" for e in app.session.client.request_log.entries]
        details = [line for line in log if "/tags/" in line]
        assert len(details) == (0 if graphql else 7)  # GraphQL: no request per tag
        # GraphQL: the tags, then their manifests' layers; without it, the one refused request
        assert sum("/api/graphql" in line for line in log) == (2 if graphql else 1)
        await pilot.press("c")
        await pilot.pause()
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen)
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        summary = text(panel, "#cleanup-summary")
        assert summary.startswith("3 to delete · 4 kept (latest 1, not matched 3)")
        # the layers come through GraphQL only: without them the figure is an upper bound, and says so
        assert ("frees 7.0 MB" if graphql else "frees ≤ 7.0 MB") in summary
