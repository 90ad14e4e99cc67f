"""Every screen and widget class of labdeck that declares bindings: for the keymap check and the id test.

Found by walking the `labdeck.tui` package (every module imported once) rather than listed by hand, so a
screen added later is known at once: a `[keymap]` entry for its binding ids never warns.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from functools import cache
from typing import Any

from textual.dom import DOMNode

PACKAGE = "labdeck.tui"


@cache
def screen_classes() -> list[type[Any]]:
    """The labdeck classes (screens, dialogs, widgets, mixins) that declare their own `BINDINGS`."""
    package = importlib.import_module(PACKAGE)
    found: dict[str, type[Any]] = {}
    for module_info in pkgutil.walk_packages(package.__path__, prefix=f"{PACKAGE}."):
        module = importlib.import_module(module_info.name)
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if not cls.__module__.startswith(PACKAGE) or "BINDINGS" not in cls.__dict__:
                continue
            if issubclass(cls, DOMNode) or any(issubclass(sub, DOMNode) for sub in cls.__subclasses__()):
                found[f"{cls.__module__}.{cls.__qualname__}"] = cls
    return list(found.values())
