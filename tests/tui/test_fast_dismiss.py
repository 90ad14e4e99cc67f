"""A dialog dismisses only itself, once (`textual_internals.install_dismiss_guard`; the key storm found
from a dialog dismissed after it had closed): a late dismissal runs no callback and pops nothing; quick
escapes after a jump stop at the home screen."""

from __future__ import annotations

from snapshot_apps import make_app, until
from textual import events

from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.shell.help import HelpScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.screens.shell.request_log import RequestLogScreen

SIZE = (100, 30)


def send(app: object, *keys: str) -> None:
    """Queue keys as a terminal does, without waiting for the app between them."""
    chars = {"enter": "\r", "escape": "\x1b", "colon": ":", "question_mark": "?"}
    for key in keys:
        event = events.Key(key, chars.get(key, key if len(key) == 1 else None))
        app._driver.send_message(event)  # type: ignore[attr-defined]


async def test_jump_then_escape_at_once_and_escapes_past_home() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        send(app, "colon")
        await pilot.pause()
        send(app, *"log", "enter", "escape", "escape", "escape", "escape", "question_mark")
        # the `?` typed last opens help once every escape before it has been read
        await until(pilot, lambda: isinstance(app.screen, HelpScreen), "help opened after the escapes")
        assert [type(screen) for screen in app.screen_stack] == [HomeScreen, HelpScreen]
        assert app.is_running and app.return_code is None


async def test_a_closed_dialog_dismissing_again_pops_nothing() -> None:
    """What a dialog's late worker (or a queued key) does after the dialog closed: no callback, no pop."""
    app = make_app()
    answers: list[bool | None] = []
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        log = RequestLogScreen()
        await app.push_screen(log)
        confirm = ConfirmScreen("Delete", "Delete it?", confirm_label="Delete")
        app.push_screen(confirm, answers.append)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert answers == [False] and app.screen is log
        confirm.dismiss(True)  # late: the dialog is gone
        await pilot.pause()
        assert answers == [False] and app.screen is log
        app.pop_screen()
        await pilot.pause()
        confirm.dismiss(True)  # with only the home screen left: no "Can't pop screen"
        await pilot.pause()
        assert isinstance(app.screen, HomeScreen) and app.is_running and app.return_code is None


async def test_keys_still_on_their_way_when_the_app_closes_are_dropped() -> None:
    """The app closes while the key router still lets kept keys in (one at a time): a key that reaches it
    after its screens are gone is dropped, not a crash (`ScreenStackError`)."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        send(app, "colon", *"log", "enter", *["escape"] * 40)
        await until(pilot, lambda: isinstance(app.screen, HomeScreen) and not app.context.keys.idle,
                    "the keys still being let in")
    # leaving the block closes the app mid-replay; a crash inside it would be raised here


async def test_a_palette_action_still_opening_its_area_when_the_app_closes_ends_quietly() -> None:
    """A palette action awaits its area, then looks for its screen: if the app closed meanwhile, there is
    no screen to look at, which is no error (the key storm met it as a `ScreenStackError`)."""
    from labdeck.tui.area_commands import _Runner
    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app()
    async with app.run_test(size=SIZE):
        await app.workers.wait_for_complete()
        app.call_later(_Runner(app, "users", UsersScreen, "refresh_data"))
    # leaving the block closed the app while the action awaited its area; a crash would be raised here
