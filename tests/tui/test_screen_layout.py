"""Every screen at 60x20: nothing runs off the right edge. What scrolls sideways inside a strip that fits
(the footer's keys, a tab bar, a table's columns) is not cut: it is reached by scrolling."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from screen_catalogue import SCREENS, app_and_store
from snapshot_apps import settle
from textual.pilot import Pilot
from textual.widget import Widget
from textual.widgets import Footer, Tabs

from pilot_speed import draw_whole

pytestmark = [pytest.mark.slow, pytest.mark.asyncio(loop_scope="module")]


def _in_a_strip(widget: Widget, width: int) -> bool:
    """Inside a container that fits and scrolls sideways (or keeps what has focus in view, as tabs do)."""
    return any(isinstance(a, Widget) and a.region.right <= width
               and (isinstance(a, Footer | Tabs) or a.allow_horizontal_scroll) for a in widget.ancestors)


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def at_60x20() -> AsyncIterator[tuple[Pilot[Any], Any]]:
    """One app at 60x20 (and its sandbox's store) for every screen of the module: each test opens its
    screen over the home view and goes back, so labdeck boots once, not per screen. The screens only read."""
    app, store = app_and_store()
    async with app.run_test(size=(60, 20)) as pilot:
        await settle(pilot)
        yield pilot, store


@pytest.mark.parametrize("name", sorted(SCREENS))
async def test_nothing_runs_off_the_right_edge_at_60x20(name: str, at_60x20: tuple[Pilot[Any], Any]) -> None:
    pilot, store = at_60x20
    app = pilot.app
    depth = len(app.screen_stack)
    try:
        await SCREENS[name](pilot, store)
        screen: Any = app.screen
        draw_whole(app)  # as the terminal would: a widget that cannot draw fails here
        cut = [(w, w.region) for w in screen.query("*")
               if w.display and w.region.width and w.region.right > 60 and not _in_a_strip(w, 60)]
        assert not cut, f"{name}: cut at the right: {cut[:4]}"
    finally:
        while len(app.screen_stack) > depth:
            await app.pop_screen()
        await settle(pilot)
