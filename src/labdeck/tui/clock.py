"""What "now" is for a screen or a pane: the clock it was given (a test that fixes one), else the console's
one "now" (`Context.now`: the instance's time as its answers tell it, or the local wall time with no
instance connected). No screen reads the machine's calendar itself."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime

from textual.dom import DOMNode

from labdeck.tui.context import context_of

Now = Callable[[], datetime]
Today = Callable[[], date]


def now_of(node: DOMNode, given: Now | None = None) -> Now:
    """`given`, else the console's now as `node` sees it when called (attached or not yet)."""
    return given if given is not None else (lambda: context_of(node).now())


def today_of(node: DOMNode, given: Today | None = None) -> Today:
    """`given`, else the console's date as `node` sees it when called."""
    return given if given is not None else (lambda: context_of(node).today())
