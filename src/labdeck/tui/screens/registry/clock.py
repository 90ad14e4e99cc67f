"""What "now" is for the registry's screens: a clock a screen is given (tests), or the instance's time as
its answers tell it (`ApiClient.server_time`), or the local wall time with no instance connected. Apart
from `registry.py` so that the policy panel (which the project view's tab opens) needs nothing else of it."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from labdeck.tui.screens.base import LabdeckScreen

Now = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


def instance_now(screen: LabdeckScreen, now: Now | None = None) -> datetime:
    """`now()` when the screen was given a clock (tests), else the instance's time as its answers tell it
    (`ApiClient.server_time`: a sandbox whose clock was moved forward runs its policies at that time), or
    the local wall time with no instance connected."""
    if now is not None:
        return now()
    session = screen.ctx.session
    return session.client.server_time.now() if session is not None else utc_now()
