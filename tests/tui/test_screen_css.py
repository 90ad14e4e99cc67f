"""A screen's styles are a `.tcss` file beside it (`CSS_PATH`); `DEFAULT_CSS` is for reusable widgets only
(docs/design.md, "Style to follow"). Checked on the classes: every screen class labdeck defines under
`tui/screens/`."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from pathlib import Path

from textual.screen import Screen

import labdeck.tui.screens as screens


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
