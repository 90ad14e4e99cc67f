"""The key storm: seeded random key sequences sent in quick bursts to a labdeck app that runs against a
sandbox with latency and faults. Keys are sent the way a terminal sends them (straight to the driver's
queue, a burst at a time, without waiting for the app between keys), so they land while screens open,
lists load and dialogs close.

What is sent: navigation and page keys, `:` jumps to every area (the area name typed), escape, the palette
(`ctrl+p`, a few letters, then enter, escape or a page key), typing (letters, digits, spaces), marks
(space), `r`, enter, `/`, `d`, `?` and each screen's own lower-case keys. Not sent: `q` and `ctrl+q`
(quitting would end the storm; their confirmation has its own tests), upper-case keys (exports and
imports write files) and `o` (opens a browser). The app's `exit` is recorded, not obeyed, so a palette
"Quit" does not end the run either; an error still sets the app's exception, which the storm checks.
"""

from __future__ import annotations

import random
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from snapshot_apps import make_app
from textual import events
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key

from faulty_sandbox import SocketLike, fast_retry_settings
from labdeck.config.files import Config
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.tui.app import LabdeckApp
from labdeck.tui.areas import AREAS

PAUSE = "<pause>"  # not a key: let the app catch up here
STORM_FAULTS = "badjson=0.05,503=0.05,reset=0.05,429=0.05"
NAVIGATION = ["up", "down", "j", "k", "pageup", "pagedown", "home", "end", "left", "right", "tab",
              "shift+tab"]
SCREEN_KEYS = ["r", "enter", "slash", "d", "question_mark", "space", "c", "f", "m", "x", "a", "e", "i",
               "b", "t", "l", "p", "s", "n", "y", "left_square_bracket", "right_square_bracket", "ctrl+a",
               "ctrl+c", "backspace", "delete"]
TYPING = [*"abcdefghijklmnoprstuvwxyz0123456789", "space", "minus", "full_stop"]


def key_event(key: str) -> events.Key:
    """The event a terminal would produce for `key` (as Textual's pilot builds it)."""
    original = REPLACED_KEYS.get(key, key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(original))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


def burst(rng: random.Random, areas: list[str]) -> list[str]:
    """One burst of keys, as a hand would send them."""
    kind = rng.choices(["nav", "jump", "hasty", "escape", "palette", "type", "screen", "page"],
                       weights=[28, 10, 8, 10, 6, 12, 20, 6])[0]
    if kind == "nav":
        return [rng.choice(NAVIGATION) for _ in range(rng.randint(1, 6))]
    if kind in ("jump", "hasty"):
        name = [c if c.isalnum() else _character_to_key(c) for c in rng.choice(areas)]
        jump = ["colon", PAUSE, *name, "enter"]  # the prompt must be open to take the name
        if kind == "jump":
            return jump
        # open an area and leave it at once, while it loads (`:users` then escape); or search and leave
        extra = [rng.choice(["f", "slash", "r"]), *rng.sample(TYPING[:26], 3), "enter"]
        return [*jump, PAUSE, *(extra if rng.random() < 0.5 else []), *["escape"] * rng.randint(1, 2)]
    if kind == "escape":
        return ["escape"] * rng.randint(1, 3)
    if kind == "palette":
        typed = [rng.choice(TYPING) for _ in range(rng.randint(0, 4))]
        return ["ctrl+p", *rng.sample(["pagedown", "pageup"], rng.randint(0, 2)), *typed,
                rng.choice(["enter", "escape", "pagedown", "pageup", "down"])]
    if kind == "type":
        return [rng.choice(TYPING) for _ in range(rng.randint(1, 8))]
    if kind == "page":
        return [rng.choice(["pagedown", "pageup"]) for _ in range(rng.randint(1, 4))]
    return [rng.choice(SCREEN_KEYS) for _ in range(rng.randint(1, 3))]


@dataclass
class StormResult:
    keys: int = 0
    bursts: int = 0
    exits_requested: int = 0
    screens: set[str] = field(default_factory=set)
    error_notifications: int = 0


def storm_app(tmp_path: Path, seed: int, latency_ms: float) -> LabdeckApp:
    asgi = create_app(SandboxOptions(scale="tiny", latency_ms=latency_ms, faults=STORM_FAULTS,
                                     fault_seed=seed), clock=ManualClock())
    config = Config(path=tmp_path / "config" / "config.toml")
    app = make_app(config, settings=fast_retry_settings("storm"),
                   transport_factory=lambda settings: SocketLike(asgi), crash_dir=tmp_path / "crash")
    app.open_url = lambda *args, **kwargs: None  # type: ignore[method-assign]
    return app


def crash_reports(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "crash"
    return sorted(folder.iterdir()) if folder.exists() else []


async def run_storm(tmp_path: Path, *, seed: int, keys: int, latency_ms: float = 150.0,
                    size: tuple[int, int] = (120, 36)) -> StormResult:
    """Send about `keys` keys; raise AssertionError at the first sign of an error (the app's exception,
    a crash report, or the app no longer running)."""
    rng = random.Random(seed)
    app = storm_app(tmp_path, seed, latency_ms)
    result = StormResult()
    original_notify = app.notify

    def notify(message: Any, **options: Any) -> None:
        if options.get("severity") == "error":
            result.error_notifications += 1
        original_notify(message, **options)

    def exit_requested(*args: Any, **kwargs: Any) -> None:
        result.exits_requested += 1

    app.notify = notify  # type: ignore[method-assign]
    areas = [name for name in AREAS]
    async with app.run_test(size=size) as pilot:
        real_exit = app.exit
        app.exit = exit_requested  # type: ignore[method-assign]
        await pilot.pause()
        driver = app._driver
        assert driver is not None
        while result.keys < keys:
            sequence = burst(rng, areas)
            for key in sequence:
                if key == PAUSE:
                    await pilot.pause()
                    continue
                event = key_event(key)
                event.set_sender(app)
                driver.send_message(event)
                result.keys += 1
            result.bursts += 1
            if rng.random() < 0.5:
                await pilot.pause()  # sometimes let the app catch up; often not
            result.screens.add(type(app.screen).__name__)
            assert app._exception is None, f"seed {seed}, after {result.keys} keys: {app._exception!r}"
            assert not crash_reports(tmp_path), f"seed {seed}, after {result.keys} keys: crash report"
            assert app.is_running and app.return_code is None, f"seed {seed}: the app stopped"
        await pilot.pause()
        try:
            await app.workers.wait_for_complete()
        except Exception:  # a failed worker was handled (a notification); an unexpected one is caught below
            pass
        await pilot.pause()
        assert app._exception is None, f"seed {seed}, at the end: {app._exception!r}"
        assert not crash_reports(tmp_path)
        await app.jobs.cancel_all()
        app.exit = real_exit  # type: ignore[method-assign]
    return result
