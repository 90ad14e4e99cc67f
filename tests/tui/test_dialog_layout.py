"""Every dialog at 80x24: Tab reaches each of its controls, and the focused control is on screen, inside the
dialog's scroll viewport (a dialog that does not fit scrolls to what has focus). At 60x20 no dialog runs
off the right edge."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import pytest
from dialog_catalogue import DIALOGS
from snapshot_apps import make_app, settle
from textual.geometry import Region
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widget import Widget

pytestmark = pytest.mark.slow


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


def _assert_visible(widget: Widget, screen_region: Region, name: str) -> None:
    region = widget.region
    top = Region(region.x, region.y, region.width, 1)  # a control taller than its viewport shows its top
    assert screen_region.contains_region(top), f"{name}: {widget!r} at {region} is off the screen"
    for container, viewport in _viewports(widget):
        assert viewport.contains_region(top), \
            f"{name}: {widget!r} at {region} is outside the viewport {viewport} of {container!r}"


@asynccontextmanager
async def opened(name: str, size: tuple[int, int]) -> AsyncIterator[tuple[Pilot[Any], Screen[Any]]]:
    """The app at `size` with the dialog `name` open over the home view."""
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        dialog = DIALOGS[name]()
        await app.push_screen(dialog)
        await settle(pilot)
        yield pilot, dialog


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_tab_reaches_every_control_at_80x24(name: str) -> None:
    async with opened(name, (80, 24)) as (pilot, dialog):
        wanted = _focusables(dialog)
        assert wanted, f"{name} has nothing to focus"
        screen_region = dialog.region
        reached: list[Widget] = []
        for _ in range(len(wanted) + 2):
            focused = dialog.focused
            if focused is not None:
                reached.append(focused)
                _assert_visible(focused, screen_region, name)
            await pilot.press("tab")
            await pilot.pause()
        missing = [w for w in wanted if w not in reached]
        assert not missing, f"{name}: Tab never reaches {missing}"


@pytest.mark.parametrize("name", sorted(DIALOGS))
async def test_nothing_runs_off_the_right_edge_at_60x20(name: str) -> None:
    async with opened(name, (60, 20)) as (_pilot, dialog):
        for widget in dialog.query("*"):
            if widget.display and widget.region.width:
                assert widget.region.right <= 60, f"{name}: {widget!r} at {widget.region} is cut at the right"
