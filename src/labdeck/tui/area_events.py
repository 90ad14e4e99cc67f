"""What the navigation tells an area's screen (`tui/navigation.py` posts, the screen handles): a module of
its own, so that a screen can hear it without importing the navigation (which opens screens)."""

from __future__ import annotations

from textual.message import Message


class AreaShownAgain(Message):
    """Posted to an area's screen when a jump (`:`, the palette, home) shows the area that was open, from
    another area or from itself: the operator asked for it again (`:log` goes to its newest request)."""
