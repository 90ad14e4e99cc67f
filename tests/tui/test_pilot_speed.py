"""What the Pilot tests skip of Textual's work (`tests/pilot_speed.py`): frames are laid out but drawn only
when a test looks (`draw_whole` draws, and a widget that cannot draw raises there), `drawn` tests draw
every frame, CSS is parsed once a process and the rules gathered from the same sources are shared. The
Textual private names it relies on are checked here."""

from __future__ import annotations

import inspect

import pytest
from rich.segment import Segment
from textual.app import App, ComposeResult
from textual.css.stylesheet import Stylesheet
from textual.strip import Strip
from textual.widget import Widget

from pilot_speed import _gathered, _mapped, _original_refresh, _parsed, draw_whole


class Counted(Widget):
    DEFAULT_CSS = "Counted { height: 3; }"

    def __init__(self) -> None:
        super().__init__()
        self.lines_drawn = 0
        self.broken = False

    def render_line(self, y: int) -> Strip:
        if self.broken:
            raise RuntimeError("cannot draw this")
        self.lines_drawn += 1
        return Strip([Segment("x" * self.size.width)])


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield Counted()


async def test_frames_are_laid_out_but_drawn_only_when_a_test_draws() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        widget = app.query_one(Counted)
        widget.refresh()
        await pilot.pause()
        assert widget.size.width == 40  # laid out
        assert widget.lines_drawn == 0  # not drawn
        draw_whole(app)
        assert widget.lines_drawn == 3  # the screen, drawn whole
    assert widget.lines_drawn == 3


async def test_a_widget_that_cannot_draw_raises_where_the_test_draws() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        app.query_one(Counted).broken = True
        await pilot.pause()
        with pytest.raises(RuntimeError, match="cannot draw this"):
            draw_whole(app)


@pytest.mark.drawn
async def test_a_drawn_test_draws_every_frame() -> None:
    app = Host()
    async with app.run_test(size=(40, 10)) as pilot:
        await pilot.pause()
        assert app.query_one(Counted).lines_drawn >= 3


async def test_css_is_parsed_once_for_every_app_of_the_process() -> None:
    for _ in range(2):
        async with Host().run_test(size=(40, 10)) as pilot:
            await pilot.pause()
    keys = [key for key in _parsed if key[0] == Counted.DEFAULT_CSS]
    assert len(keys) == 1


async def test_apps_share_the_rules_gathered_from_the_same_sources() -> None:
    stylesheets = []
    for _ in range(2):
        app = Host()
        async with app.run_test(size=(40, 10)) as pilot:
            await pilot.pause()
            stylesheets.append(app.stylesheet)
    first, second = stylesheets
    assert first.rules is second.rules and first.rules_map is second.rules_map
    assert any(rules is first.rules for rules in _gathered.values())
    assert _mapped[id(first.rules)][1] is first.rules_map
    by_name: dict[str, list[object]] = {}
    for rule in first.rules:  # the map is the one Textual builds: each selector name's rules, in order
        for name in rule.selector_names:
            by_name.setdefault(name, []).append(rule)
    assert first.rules_map == by_name
    second.add_source("Counted { width: 7; }", read_from=("test", "more"))  # new sources: gathered anew
    assert second.rules is not first.rules and len(second.rules) == len(first.rules) + 1


def test_the_private_names_it_relies_on_still_exist() -> None:
    source = inspect.getsource(_original_refresh)  # Screen._compositor_refresh, as Textual has it
    for name in ("self._compositor.render_update", "self._dirty_widgets.clear()", "app._update_mouse_over"):
        assert name in source, name
    assert list(inspect.signature(Stylesheet._parse_rules).parameters) == [
        "self", "css", "read_from", "is_default_rules", "tie_breaker", "scope"]
    assert "_variables" in Stylesheet().__dict__
    for name in ("_rules", "_rules_map", "_require_parse", "source"):
        assert name in Stylesheet().__dict__, name
    assert hasattr(App(), "_background_screens")
