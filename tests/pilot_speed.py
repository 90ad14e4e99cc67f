"""What the Pilot tests skip of Textual's work, and why it changes nothing a test asserts. Installed once by
`tests/conftest.py`; the private names it reads are checked against the Textual release in
`tests/tui/test_textual_internals.py`.

- **Frames nobody sees.** A headless app renders every frame (`Compositor.render_update`, up to 60 a
  second) and its driver throws the picture away: about a third of a Pilot test's time. The tests' apps lay
  out every frame as before (sizes, regions, clicks, resize events) but draw only when a test looks: a
  snapshot, `export_screenshot` or `render_strips` renders the screen itself, and `draw_whole(app)` draws
  the screen as the terminal would, so a widget that cannot draw what it holds raises there: the tests of
  every screen and dialog of the catalogues (`test_screen_layout.py`, `test_dialog_layout.py`) draw each.
  A test about drawing itself (a table that widens a column once the value is on screen, that formats only
  the rows drawn) is marked `drawn` and draws every frame as labdeck does. (At first every test drew its
  last screen whole as it ended: a fifth of the Pilot tests' time, for what those tests, the snapshots,
  the hostile-text tests that read what is drawn and the end-to-end tests in tmux catch.)
- **CSS parsed once a process.** Each app parses every stylesheet again (its own, each widget's
  `DEFAULT_CSS`, each screen's): the tests' apps share what a parse gave for the same text, location and
  theme variables. Rules are not changed once parsed (`Stylesheet` keeps them in its own cache the same way).
  An app also gathers its rules again, and maps them by selector name, each time a widget of a new class
  mounts (its `DEFAULT_CSS` joins the sources): the tests' apps share the rules gathered from the same
  sources in the same order, and the map of the same rules (the last few hundred of each are kept).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from textual.app import App
from textual.css.stylesheet import Stylesheet
from textual.screen import Screen

_drawn_frames = [False]  # set while a `drawn` test runs
_original_refresh = Screen._compositor_refresh
_original_parse_rules = Stylesheet._parse_rules
_original_parse = Stylesheet.parse
_original_rules_map = Stylesheet.rules_map
_parsed: dict[tuple[Any, ...], list[Any]] = {}
KEPT = 400  # rule lists (and maps) kept: an app adds its sources in the order its widgets first mount
_gathered: OrderedDict[tuple[Any, ...], list[Any]] = OrderedDict()  # sources, variables -> the rules
_mapped: OrderedDict[int, tuple[list[Any], dict[str, list[Any]]]] = OrderedDict()  # id(rules) -> map


def _refresh_laid_out_not_drawn(self: Screen[Any]) -> None:
    """`Screen._compositor_refresh` without the picture of the top screen of a headless app."""
    app = self.app
    if app.is_headless and not app.is_inline and self is app.screen and not _drawn_frames[0]:
        self._compositor._dirty_regions.clear()
        self._dirty_widgets.clear()
        app._update_mouse_over(self)
        return
    _original_refresh(self)


def _variables_key(self: Stylesheet) -> tuple[tuple[str, str], ...]:
    """The stylesheet's variables as a key, sorted once for each set of them (Textual replaces the dict when
    they change, never changes it in place)."""
    known = self.__dict__.get("_shared_variables")
    if known is None or known[0] is not self._variables:
        known = self.__dict__["_shared_variables"] = (self._variables, tuple(sorted(self._variables.items())))
    return known[1]


def _parse_rules_shared(self: Stylesheet, css: str, read_from: Any, is_default_rules: bool = False,
                        tie_breaker: int = 0, scope: str = "") -> list[Any]:
    key = (css, read_from, is_default_rules, tie_breaker, scope, _variables_key(self))
    rules = _parsed.get(key)
    if rules is None:
        rules = _parsed[key] = _original_parse_rules(self, css, read_from, is_default_rules, tie_breaker,
                                                     scope)
    return rules


def _kept(cache: OrderedDict[Any, Any], key: Any, value: Any) -> Any:
    cache[key] = value
    if len(cache) > KEPT:
        cache.popitem(last=False)
    return value


def _parse_shared(self: Stylesheet) -> None:
    """`Stylesheet.parse`, the rules of the same sources and variables shared (a parse that fails raises
    as before and is not kept)."""
    key = (tuple(self.source.items()), _variables_key(self))
    rules = _gathered.get(key)
    if rules is None:
        _original_parse(self)
        _kept(_gathered, key, self._rules)
        return
    _gathered.move_to_end(key)
    self._rules, self._require_parse, self._rules_map = rules, False, None


def _rules_map_shared(self: Stylesheet) -> dict[str, list[Any]]:
    """`Stylesheet.rules_map`, one map for one list of rules (kept alive with it: its id stays its own)."""
    if self._rules_map is None:
        rules = self.rules
        known = _mapped.get(id(rules))
        if known is None or known[0] is not rules:
            known = _kept(_mapped, id(rules), (rules, _original_rules_map.fget(self)))  # type: ignore[attr-defined]
        self._rules_map = known[1]
    return self._rules_map


def draw_whole(app: App[Any]) -> None:
    """Draw the app's screen whole, as a frame of the terminal (a widget that cannot draw raises here)."""
    app.screen._compositor.render_update(full=True, screen_stack=app._background_screens)


@contextmanager
def every_frame_drawn() -> Iterator[None]:
    """Draw every frame of the apps run inside (the `drawn` tests)."""
    _drawn_frames[0] = True
    try:
        yield
    finally:
        _drawn_frames[0] = False


def install() -> None:
    """Install the changes, for the whole test process."""
    Screen._compositor_refresh = _refresh_laid_out_not_drawn  # type: ignore[method-assign]
    Stylesheet._parse_rules = _parse_rules_shared  # type: ignore[method-assign]
    Stylesheet.parse = _parse_shared  # type: ignore[method-assign]
    Stylesheet.rules_map = property(_rules_map_shared)  # type: ignore[method-assign, assignment]
