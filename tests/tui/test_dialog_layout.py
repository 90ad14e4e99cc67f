"""Every dialog at 80x24: Tab reaches each of its controls, and the focused control is on screen, inside the
dialog's scroll viewport (a dialog that does not fit scrolls to what has focus). At 60x20 no dialog runs
off the right edge. One running app per size serves every dialog (each test opens a fresh dialog over the
home view and closes it), since booting labdeck costs more than the check."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
import pytest_asyncio
from dialog_catalogue import DIALOGS
from snapshot_apps import make_app, settle
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

from pilot_speed import draw_whole

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


def _focusables(screen: Any) -> list[Widget]:
    return [w for w in screen.query("*") if w.focusable and w.display and w.visible
            and all(a.display for a in w.ancestors if isinstance(a, Widget))]


def _viewports(widget: Widget) -> list[tuple[Widget, Region]]:
    """The visible region of every scrolling container around `widget`."""
    out = []
    for node in widget.ancestors:
        if isinstance(node, Widget) and node.is_scrollable and (node.allow_vertical_scroll
                                                                  or node.allow_horizontal_scroll):
            out.append((node, node.scrollable_content_region))
    return out


def _is_visible(widget: Widget, screen_region: Region) -> bool:
    region = widget.region
    top = Region(region.x, region.y, region.width, 1)
    return screen_region.contains_region(top) and all(
        viewport.contains_region(top) for _container, viewport in _viewports(widget))


async def _assert_visible_soon(pilot: Pilot[Any], widget: Widget, screen_region: Region, name: str) -> None:
    """The focused control scrolls into view after the focus moves (a refresh later, longer on a busy
    machine): wait for it, then say where it is if it never came."""
    for _ in range(100):
        if _is_visible(widget, screen_region):
            return
        await pilot.pause(0.02)
    _assert_visible(widget, screen_region, name)


def _assert_visible(widget: Widget, screen_region: Region, name: str) -> None:
    region = widget.region
    top = Region(region.x, region.y, region.width, 1)  # a control taller than its viewport shows its top
    assert screen_region.contains_region(top), f"{name}: {widget!r} at {region} is off the screen"
    for container, viewport in _viewports(widget):
        assert viewport.contains_region(top), \
            f"{name}: {widget!r} at {region} is outside the viewport {viewport} of {container!r}"


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def at_80x24() -> AsyncIterator[Pilot[Any]]:
    """One app at 80x24 (the home view settled) for every dialog of the module: each test opens its
    dialog over the home view and closes it again (`opened`), so the boot is paid once, not per dialog."""
    async with running((80, 24)) as pilot:
        yield pilot


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def at_60x20() -> AsyncIterator[Pilot[Any]]:
    async with running((60, 20)) as pilot:
        yield pilot


@asynccontextmanager
async def running(size: tuple[int, int]) -> AsyncIterator[Pilot[Any]]:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        yield pilot


@asynccontextmanager
async def opened(pilot: Pilot[Any], name: str) -> AsyncIterator[Screen[Any]]:
    """The dialog `name`, freshly built, open over the home view; closed afterwards, pass or fail."""
    app = pilot.app
    depth = len(app.screen_stack)
    dialog = DIALOGS[name]()
    await app.push_screen(dialog)
    await settle(pilot)
    try:
        assert app.screen is dialog, f"{name} did not open: {app.screen!r}"
        draw_whole(app)  # as the terminal would: a widget that cannot draw fails here
        yield dialog
    finally:
        while len(app.screen_stack) > depth:
            await app.pop_screen()
        await settle(pilot)


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_tab_reaches_every_control_at_80x24(name: str, at_80x24: Pilot[Any]) -> None:
    pilot = at_80x24
    async with opened(pilot, name) as dialog:
        wanted = _focusables(dialog)
        assert wanted, f"{name} has nothing to focus"
        screen_region = dialog.region
        reached: list[Widget] = []
        for _ in range(len(wanted) + 2):
            focused = dialog.focused
            if focused is not None:
                reached.append(focused)
                await _assert_visible_soon(pilot, focused, screen_region, name)
            await pilot.press("tab")
            await pilot.pause()
        missing = [w for w in wanted if w not in reached]
        assert not missing, f"{name}: Tab never reaches {missing}"


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_nothing_runs_off_the_right_edge_at_60x20(name: str, at_60x20: Pilot[Any]) -> None:
    async with opened(at_60x20, name) as dialog:
        for widget in dialog.query("*"):
            if widget.display and widget.region.width:
                assert widget.region.right <= 60, f"{name}: {widget!r} at {widget.region} is cut at the right"
