"""Watch mode refreshes at once when turned on, then every interval, on an injected clock (no real waiting):
it used to wait a whole interval before its first refresh."""

from __future__ import annotations

from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

from labdeck.tui.watch import Watcher


class FakeClock:
    """A schedule whose time moves only when the test says so."""

    def __init__(self) -> None:
        self.now = 0.0
        self.pending: list[tuple[float, Callable[[], None]]] = []

    def schedule(self, delay: float, callback: Callable[[], None]) -> SimpleNamespace:
        entry = (self.now + delay, callback)
        self.pending.append(entry)
        return SimpleNamespace(stop=lambda: self.pending.remove(entry) if entry in self.pending else None)

    def advance(self, seconds: float) -> None:
        self.now += seconds
        due = [entry for entry in self.pending if entry[0] <= self.now]
        for entry in due:
            self.pending.remove(entry)
            entry[1]()


class FakeScreen:
    def __init__(self) -> None:
        self.is_attached = True
        self.app = SimpleNamespace(screen=self, session=None)
        self.refreshes = 0
        self.sub_title: str | None = None

    def refresh_data(self) -> None:
        self.refreshes += 1

    def notify(self, *args: Any, **kwargs: Any) -> None:
        pass


def fake_table() -> Any:
    return SimpleNamespace(marked_rows=[], model=SimpleNamespace(fingerprints=dict), on_rows_set=None,
                           flash=lambda keys: None)


def test_watch_refreshes_at_once_then_every_interval() -> None:
    clock, screen = FakeClock(), FakeScreen()
    watcher = Watcher(screen, fake_table(), 30.0, schedule=clock.schedule)  # type: ignore[arg-type]
    assert screen.refreshes == 1  # at once, not 30 s from now
    clock.advance(29.9)
    assert screen.refreshes == 1
    clock.advance(0.1)
    assert screen.refreshes == 2
    clock.advance(30.0)
    assert screen.refreshes == 3
    watcher.stop()
    clock.advance(300.0)
    assert screen.refreshes == 3 and not clock.pending


async def test_the_header_names_the_instance_whatever_watch_mode_does() -> None:
    """`Users — demo`; with watch on, `demo` then its state (cut first in a narrow terminal); with watch off
    again, `demo` (it used to be dropped while watching and once watch was turned off)."""
    from snapshot_apps import jump_to, make_app, settle, until

    app = make_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await jump_to(pilot, "users")
        await settle(pilot)

        def header() -> str:
            return str(app.screen.query_one("HeaderTitle").render())

        assert header().endswith("— demo")
        await pilot.press("W")
        await until(pilot, lambda: "— demo · watching every" in header(), "the instance, then watch")
        await pilot.press("W")
        await until(pilot, lambda: header().endswith("— demo"), "the instance alone again")
        await settle(pilot)
