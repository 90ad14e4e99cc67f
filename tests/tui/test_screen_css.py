"""A screen's styles are a `.tcss` file beside it (`CSS_PATH`); `DEFAULT_CSS` is for reusable widgets only
(docs/design.md, "Style to follow"). Checked on the classes: every screen class labdeck defines under
`tui/screens/`. The app reads every stylesheet as it starts (`app.stylesheets`), so no two of them may
style the same selector (which one wins would depend on the order they are read), and a screen starts
with the size class its first resize gives it: opening a screen styles it once."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections import defaultdict
from pathlib import Path

import pytest
from snapshot_apps import make_app, settle
from textual import events
from textual.screen import Screen

import labdeck.tui.screens as screens
from labdeck.tui.app import LabdeckApp, stylesheets
from labdeck.tui.app_base import size_classes


def _screen_classes() -> list[type[Screen[object]]]:
    found = []
    for info in pkgutil.walk_packages(screens.__path__, "labdeck.tui.screens."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if inspect.isclass(value) and value.__module__ == info.name and issubclass(value, Screen):
                found.append(value)
    return found


def test_no_screen_declares_default_css() -> None:
    screens_found = _screen_classes()
    assert len(screens_found) > 40  # the walk sees the screens
    declaring = sorted(f"{c.__module__}.{c.__qualname__}" for c in screens_found
                       if str(c.__dict__.get("DEFAULT_CSS", "")).strip())
    assert declaring == []


def test_every_css_path_of_a_screen_is_a_file_beside_it() -> None:
    missing = []
    for cls in _screen_classes():
        paths = cls.__dict__.get("CSS_PATH")
        if paths is None:
            continue
        folder = Path(inspect.getfile(cls)).parent
        for path in [paths] if isinstance(paths, str | Path) else paths:
            if not (folder / path).is_file():
                missing.append(f"{cls.__qualname__}: {path}")
    assert missing == []


def test_the_app_reads_the_stylesheet_of_every_screen_as_it_starts() -> None:
    read = {str(path) for path in stylesheets()}
    assert LabdeckApp.CSS_PATH == stylesheets() and str(stylesheets()[0]).endswith("tui/app.tcss")
    named = set()
    for cls in _screen_classes():
        paths = cls.__dict__.get("CSS_PATH") or []
        for path in [paths] if isinstance(paths, str | Path) else paths:
            named.add(str(Path(inspect.getfile(cls)).parent / path))
    assert len(named) > 10 and named <= read


def _selectors(text: str) -> list[str]:
    """The selectors of the top-level rules of a stylesheet."""
    found, depth, head = [], 0, ""
    for char in re.sub(r"/\*.*?\*/", "", text, flags=re.S):
        if char == "{":
            if depth == 0:
                found += [" ".join(part.split()) for part in head.split(",")]
            depth, head = depth + 1, ""
        elif char == "}":
            depth, head = depth - 1, ""
        elif depth == 0:
            head += char
    return found


def test_no_two_stylesheets_style_the_same_selector() -> None:
    styled_in: dict[str, set[str]] = defaultdict(set)
    for path in stylesheets():
        for selector in _selectors(path.read_text()):
            styled_in[selector].add(path.name)
    assert len(styled_in) > 100
    assert {selector: files for selector, files in styled_in.items() if len(files) > 1} == {}


@pytest.mark.parametrize("width", [0, 40, 99, 100, 101, 300])
def test_size_classes_are_the_ones_textual_gives_on_a_resize(width: int) -> None:
    breakpoints = LabdeckApp.HORIZONTAL_BREAKPOINTS
    chosen = Screen()._get_breakpoint_classes(width, breakpoints)
    assert size_classes(breakpoints, width) == {name: name in chosen for _, name in breakpoints}


@pytest.mark.parametrize(("size", "named"), [((80, 24), "-compact"), ((160, 50), "-roomy")])
async def test_a_screen_starts_with_the_size_class_its_first_resize_gives(size: tuple[int, int],
                                                                          named: str) -> None:
    app = make_app()
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        screen: Screen[None] = Screen()
        app.push_screen(screen)
        assert set(screen.classes) == {named}  # before it mounts: it is styled with it
        await settle(pilot)
        assert app.screen is screen and set(screen.classes) == {named}  # what Textual's resize left


async def test_a_screen_is_restyled_when_it_comes_back_not_when_it_first_opens(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """`textual_internals.install_styled_once`: styled as its widgets mount, then left alone on its first
    resume; a screen that comes back (its area opened again: a mode switched back to) is restyled as
    Textual does."""
    restyled: list[object] = []
    update_styles = LabdeckApp.update_styles

    def spy(self: LabdeckApp, node: object, animate: bool = True) -> None:
        restyled.append(node)
        update_styles(self, node, animate)

    monkeypatch.setattr(LabdeckApp, "update_styles", spy)
    app = make_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        first: Screen[None] = Screen()
        await app.push_screen(first)
        await settle(pilot)
        assert first not in restyled
        first.post_message(events.ScreenResume())  # what `switch_mode` sends a mode's screen coming back
        await settle(pilot)
        assert app.screen is first and first in restyled
