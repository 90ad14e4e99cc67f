"""Importable test apps for the Pilot and snapshot tests: `LabdeckApp` wired to the sandbox in-process
(`httpx.ASGITransport(create_app(SandboxOptions(scale="tiny")))`), signed in as root, with a frozen clock
so that snapshots do not depend on time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import httpx
from pydantic import SecretStr

from labdeck.api.settings import ConnectionSettings
from labdeck.config.files import Config, load_config
from labdeck.tui.app import LabdeckApp

if TYPE_CHECKING:
    from textual.screen import Screen

    from labdeck.sandbox.clock import Clock

S = TypeVar("S")

SANDBOX_URL = "http://sandbox.test"
ROOT_TOKEN = "glpat-sandbox-root"


TransportFactory = Callable[[ConnectionSettings], httpx.AsyncBaseTransport]


def sandbox(clock: Clock | None = None, **options: Any) -> tuple[Any, TransportFactory]:
    """A tiny sandbox (`options` are `SandboxOptions` fields; the real clock unless `clock`) and a transport
    factory for `make_app(transport_factory=...)` that reaches it in-process (see `tiny_sandbox.Sandbox`)."""
    from tiny_sandbox import Sandbox

    made = Sandbox(clock=clock, real_clock=clock is None, **options)
    return made.asgi, made.factory


def sandbox_transport_factory(scale: str = "tiny") -> TransportFactory:
    from labdeck.sandbox.clock import ManualClock

    # a clock that stands still: seeded dates (relative to "today") stay the same in snapshots
    return sandbox(ManualClock(), scale=scale)[1]


def sandbox_settings(token: str = ROOT_TOKEN, name: str = "demo",
                     read_only: bool = False) -> ConnectionSettings:
    return ConnectionSettings(url=SANDBOX_URL, token=SecretStr(token), name=name, read_only=read_only)


class FrozenClock:
    def __init__(self, now: float = 1000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def make_app(config: Config | Path | None = None, *, settings: ConnectionSettings | None = None,
             read_only: bool = False, transport_factory: TransportFactory | None = None,
             clock: Callable[[], float] | None = None, wall: Callable[[], float] | None = None,
             crash_dir: Path | None = None, first_run: bool = False) -> LabdeckApp:
    """A LabdeckApp against the tiny sandbox (or `transport_factory`), config from a path or object; `wall`
    stands for this machine's calendar (the console's dates come from the instance's, whatever it says)."""
    if config is None:
        config = Config(path=Path("/nonexistent/labdeck-test/config.toml"))
    elif isinstance(config, Path):
        config = load_config(config)
    if settings is None and not first_run:
        settings = sandbox_settings()
    return LabdeckApp(config, settings, read_only=read_only,
                      transport_factory=transport_factory or sandbox_transport_factory(),
                      clock=clock or FrozenClock(), crash_dir=crash_dir,
                      **({"wall": wall} if wall is not None else {}))


def home_app() -> LabdeckApp:
    """The snapshot app of the home view."""
    return make_app()


def burst(app: Any, *keys: str) -> None:
    """Send `keys` the way a terminal does when they come in one burst (a fast typist, a paste typed by
    tmux, a busy machine): all into the driver's queue at once, without waiting for the app between them
    (`pilot.press` waits for the app to be idle after each key). A one-character item is that character
    (`"/"`, `"a"`, `"A"`); longer ones are key names (`"enter"`, `"ctrl+s"`, `"tab"`); type a word with
    `*"word"`."""
    import unicodedata

    from textual import events
    from textual.keys import _character_to_key, _get_unicode_name_from_key

    names = {"enter": "\r", "tab": "\t", "escape": "\x1b", "space": " "}
    for key in keys:
        if len(key) == 1:
            event = events.Key(key if key.isalnum() else _character_to_key(key), key)
        else:
            try:
                char: str | None = names.get(key) or unicodedata.lookup(_get_unicode_name_from_key(key))
            except KeyError:
                char = None
            event = events.Key(key, char)
        event.set_sender(app)
        app._driver.send_message(event)


async def keys_handled(pilot, within: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Wait until the app's key router has let every key typed so far in and their effects have happened
    (`type_ahead.KeyRouter.idle`; it waits on the app, so a sleep between checks, not a pause)."""
    import asyncio
    import time

    context = getattr(pilot.app, "context", None)
    router = getattr(context, "keys", None)
    deadline = time.monotonic() + within
    while router is not None and not router.idle and pilot.app.is_running:
        if time.monotonic() > deadline:
            raise AssertionError(f"{router.waiting} key(s) still waiting after {within} s")
        await asyncio.sleep(0.005)


async def settle(pilot, rounds: int = 1, *, failed_ok: bool = False) -> None:  # type: ignore[no-untyped-def]
    """Wait until the keys typed so far have been handled (the key router), the app's workers are done and
    the screen has caught up: the one `settle` of the Pilot tests. Pausing first lets pending messages (a
    button press, a dismiss callback) start their workers before we wait for them; more `rounds` also wait
    for the workers that finished workers start (and give timers that start loads their time: a picture
    taken sooner can differ). A cancelled worker (an exclusive one that a newer load replaced) is normal,
    on a busy machine too; a failed one raises unless `failed_ok` (the tests of failures, whose app has
    already handled it with a notification)."""
    from textual.worker import WorkerCancelled, WorkerFailed

    await pilot.pause()
    for _ in range(rounds):
        await keys_handled(pilot)
        try:
            await pilot.app.workers.wait_for_complete()
        except WorkerCancelled:
            pass
        except WorkerFailed:
            if not failed_ok:
                raise
        await pilot.pause()


async def until(pilot, check: Callable[[], object], what: str, within: float = 20.0) -> None:  # type: ignore[no-untyped-def]
    """Pause until `check()` is truthy (a debounced table, a notification, a detail drawn), instead of a
    fixed pause that a busy machine outlasts; fail naming `what` after `within` seconds. A widget `check`
    queries that is not there yet counts as not yet."""
    import time

    from textual.css.query import NoMatches

    def holds() -> bool:
        try:
            return bool(check())
        except NoMatches:  # what it looks at is not composed yet (a screen still opening)
            return False

    deadline = time.monotonic() + within
    while not holds():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} never happened within {within} s")
        await pilot.pause(0.02)
    await pilot.pause()


async def settle_for_snapshot(pilot, rounds: int = 1) -> None:  # type: ignore[no-untyped-def]
    """`settle`, then what a picture must not depend on: cursors stop blinking (a blink is not a layout)
    and every status line is redrawn from the frozen clock."""
    await settle(pilot, rounds)
    for widget in pilot.app.screen.query("Input, TextArea"):
        widget.cursor_blink = False
        # TextArea's line cache keys a still cursor like a blinked-off one: a line drawn while the cursor
        # blinked off would be shown without it (Textual 8.2.8, `TextArea.render_line`).
        getattr(widget, "_line_cache", {}).clear()
        widget.refresh()
    for screen in pilot.app.screen_stack:
        if hasattr(screen, "refresh_status"):
            screen.refresh_status()
    await pilot.pause()


async def press_for(pilot, key: str, kind: type[S]) -> S:  # type: ignore[no-untyped-def]
    """Press `key` and return the screen it opened, which must be a `kind` (a form, a dialog): waited for,
    as the key router lets a key in only once the app has settled (a busy machine takes longer)."""
    await pilot.press(key)
    await until(pilot, lambda: isinstance(pilot.app.screen, kind), f"a {kind.__name__} opened by {key!r}")
    screen = pilot.app.screen
    assert isinstance(screen, kind), screen
    return screen


async def type_to_confirm(pilot, confirm: Screen[Any], name: str) -> None:  # type: ignore[no-untyped-def]
    """Type `name` into a type-to-confirm dialog and press its confirm button."""
    from textual.widgets import Input

    confirm.query_one("#confirm-name", Input).value = name
    await pilot.pause()
    await pilot.click("#confirm")


def messages(app: LabdeckApp) -> list[str]:
    """The texts of the notifications the app has shown."""
    return [str(n.message) for n in app._notifications]


async def jump_to(pilot, name: str) -> None:  # type: ignore[no-untyped-def]
    """`:name` + enter, filling the prompt at once (typing key by key costs ~90 ms a key)."""
    from textual.widgets import Input

    from labdeck.tui.screens.shell.jump import JumpScreen

    await pilot.press("colon")
    await until(pilot, lambda: isinstance(pilot.app.screen, JumpScreen), "the jump prompt opening")
    pilot.app.screen.query_one(Input).value = name
    await pilot.press("enter")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def palette_choose(pilot, text: str, expected: str, wait: float = 3.0) -> None:  # type: ignore[no-untyped-def]
    """Open the palette, search `text`, wait (up to `wait` s) until the top hit is `expected`, choose it."""
    from textual.command import CommandList

    await pilot.press("ctrl+p")
    await pilot.pause()
    pilot.app.screen.query_one("CommandInput").value = text
    commands = pilot.app.screen.query_one(CommandList)
    for _ in range(round(wait / 0.05)):
        await pilot.pause(0.05)
        if commands.option_count and expected in str(commands.get_option_at_index(0).prompt):
            break
    else:
        raise AssertionError(f"the palette never offered {expected!r} for {text!r}")
    await pilot.press("enter")
    await pilot.pause()
