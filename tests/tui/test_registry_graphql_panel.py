"""Pilot: the tags screen and the cleanup panel read tag details through GraphQL when the instance has it,
and by REST when `/api/graphql` answers 404, with the same preview either way; the manifests' layers (the
frees figure's) are read by the panel once its preview is shown, never by the tag list alone."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest
from snapshot_apps import make_app, settle, until
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
        # GraphQL: the tags (their manifests' layers are the cleanup panel's); without it, the one refused
        assert sum("/api/graphql" in line for line in log) == 1
        await pilot.press("c")
        await pilot.pause()
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen)
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await until(pilot, lambda: "reading the layers" not in text(panel, "#cleanup-summary"),
                    "the layers, read once the plan is shown")
        log = [f"{e.method} {e.path}" for e in app.session.client.request_log.entries]
        assert sum("/api/graphql" in line for line in log) == (2 if graphql else 1)
        summary = text(panel, "#cleanup-summary")
        assert summary.startswith("3 to delete · 4 kept (latest 1, not matched 3)")
        # the layers come through GraphQL only: without them the figure is an upper bound, and says so
        assert ("frees 7.0 MB" if graphql else "frees ≤ 7.0 MB") in summary


class HeldManifests(httpx.AsyncBaseTransport):
    """The sandbox, with GraphQL's `manifest` reads held until `release()`; every request seen."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.manifest_reads = 0
        self.released = asyncio.Event()

    def release(self) -> None:
        self.released.set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/api/graphql" and b"manifest(" in request.content:
            self.manifest_reads += 1
            await self.released.wait()
        return await self.inner.handle_async_request(request)


async def test_the_preview_is_shown_before_the_layers_and_then_frees_the_exact_blobs() -> None:
    """15,000 tags are some 113 `manifest` requests (120 digests each): the preview (which tags go, why)
    needs none of them, only its frees figure does (a layer several images share counted once). So the tag
    list reads none, the panel shows its plan at once with the figure as an upper bound that says the layers
    are being read, and then the exact figure."""
    sandbox = Sandbox()
    held: list[HeldManifests] = []

    def factory(settings: Any) -> httpx.AsyncBaseTransport:
        held.append(HeldManifests(sandbox.factory(settings)))
        return held[-1]

    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_tags(pilot, sandbox)
        assert "7 tags" in text(screen, "#registry-tags-title")
        assert held[0].manifest_reads == 0  # the tag list shows GitLab's total_size: no layers needed
        await pilot.press("c")
        await pilot.pause()
        panel = app.screen
        assert isinstance(panel, RegistryCleanupScreen)
        await settle(pilot)
        assert held[0].manifest_reads == 0  # no rule typed, no plan: no layers
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await until(pilot, lambda: held[0].manifest_reads == 1, "the panel's read of the layers")
        summary = text(panel, "#cleanup-summary")
        assert summary.startswith("3 to delete · 4 kept")  # the plan, while the layers are still read
        assert "frees ≤ " in summary and "reading the layers" in summary
        held[0].release()
        await until(pilot, lambda: "reading the layers" not in text(panel, "#cleanup-summary"),
                    "the layers read")
        assert "frees 7.0 MB (blobs no kept tag uses)" in text(panel, "#cleanup-summary")
        assert panel.plan is not None and panel.plan.freed.exact
        app.pop_screen()  # the tag list keeps the layers read: a second panel reads none
        await settle(pilot)
        await pilot.press("c")
        await pilot.pause()
        assert app.screen.layers_wanted is False  # the tags have their layers
        await type_into(pilot, "#cleanup-delete", "pr-.*")
        await settle(pilot)
        assert held[0].manifest_reads == 1
        assert "frees 7.0 MB (blobs no kept tag uses)" in text(app.screen, "#cleanup-summary")
