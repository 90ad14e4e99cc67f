"""The type-ahead queue (`tui/type_ahead.TypeAhead`) on its own: keys kept in order, replayed one per refresh,
and a replayed key that answers the jump prompt again pausing the replay until that area opens (issue 24:
`:users` enter `:projects` enter typed in one burst under latency lost the second jump)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from textual import events

from labdeck.tui.type_ahead import TypeAhead


class FakeApp:
    """What TypeAhead asks of the app: posted keys are recorded, refresh callbacks run when `refresh()`."""

    def __init__(self) -> None:
        self.posted: list[str] = []
        self.after_refresh: list[Callable[[], None]] = []
        self.timers: list[Callable[[], object]] = []
        self.on_key: Callable[[str], None] = lambda key: None

    def post_message(self, event: events.Key) -> None:
        self.posted.append(event.key)
        self.on_key(event.key)

    def call_after_refresh(self, callback: Callable[..., None], *args: Any) -> None:
        self.after_refresh.append(lambda: callback(*args))

    def set_timer(self, delay: float, callback: Callable[[], object]) -> None:
        self.timers.append(callback)

    def refresh(self) -> None:
        while self.after_refresh:
            self.after_refresh.pop(0)()


def test_kept_keys_are_replayed_in_order_one_per_refresh() -> None:
    app, queue = FakeApp(), TypeAhead()
    queue.hold(app)  # type: ignore[arg-type]
    queue.add_text("/api\r")
    queue.deliver(app)  # type: ignore[arg-type]
    assert app.posted == ["slash"]
    app.refresh()
    assert app.posted == ["slash", "a", "p", "i", "enter"] and not queue.holding


def test_a_jump_answered_by_a_replayed_key_pauses_the_replay_until_its_area_opens() -> None:
    app, queue = FakeApp(), TypeAhead()
    queue.hold(app)  # type: ignore[arg-type]
    queue.add_text(":users\r:projects\r")

    def screen(key: str) -> None:
        if key == "enter":  # the jump prompt answers: its area starts opening
            queue.hold(app)  # type: ignore[arg-type]

    app.on_key = screen
    queue.deliver(app)  # type: ignore[arg-type]
    app.refresh()
    assert app.posted == ["colon", "u", "s", "e", "r", "s", "enter"], "the rest waits for :users to open"
    assert queue.holding and len(app.timers) == 2, "a paused replay still gives up after GIVE_UP"
    queue.deliver(app)  # type: ignore[arg-type]  (Users is on screen)
    app.refresh()
    assert app.posted[7:] == ["colon", "p", "r", "o", "j", "e", "c", "t", "s", "enter"]


async def test_jumps_chained_in_one_burst_each_open_their_area_and_the_last_takes_the_rest() -> None:
    """`:projects` enter `:users` enter `:deployments` enter `acme` in one burst: each prompt answers with its
    own name (the replayed enter used to reach the field after the next `:`: `No view called :users:...`)."""
    from snapshot_apps import make_app, settle, until
    from textual.widgets import Input

    from labdeck.tui.screens.deployments.deployments import DeploymentsScreen

    app = make_app()
    characters = {"colon": ":", "enter": "\r"}
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        keys = "colon p r o j e c t s enter colon u s e r s enter colon d e p l o y m e n t s enter a c m e"
        for key in keys.split(" "):
            event = events.Key(key, characters.get(key, key))
            event.set_sender(app)
            app._driver.send_message(event)  # type: ignore[union-attr]
        # (the screen may not have its field yet)
        await until(pilot, lambda: isinstance(app.screen, DeploymentsScreen)
                    and [f.value for f in app.screen.query("#deployments-scope").results(Input)] == ["acme"],
                    "the third area")
        assert [type(screen).__name__ for screen in app.screen_stack] == ["DeploymentsScreen"]
        assert not [n for n in app._notifications if "No view" in str(n.message)]


async def test_an_enter_typed_in_one_burst_with_the_name_answers_with_the_whole_name() -> None:
    """Into an open prompt, `users` and enter in one burst: the enter is read in the field's turn, after
    the letters before it (answered at the app's level, it once came before them: `No view called :`)."""
    from snapshot_apps import make_app, settle, until

    from labdeck.tui.screens.shell.jump import JumpScreen
    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app()
    characters = {"enter": "\r"}
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        await until(pilot, lambda: isinstance(app.screen, JumpScreen) and app.screen._form_ready,
                    "the prompt")
        for key in ["u", "s", "e", "r", "s", "enter"]:
            event = events.Key(key, characters.get(key, key))
            event.set_sender(app)
            app._driver.send_message(event)  # type: ignore[union-attr]
        await until(pilot, lambda: isinstance(app.screen, UsersScreen), "Users")
        assert not [n for n in app._notifications if "No view" in str(n.message)]


async def test_the_mouse_entering_the_jump_prompt_answers_nothing() -> None:
    """Textual sends an `Enter` event when the mouse enters a widget, to `on_enter` handlers: the prompt's
    answer must not be such a handler (it once was: moving the mouse over the prompt "answered" it)."""
    from snapshot_apps import make_app, settle, until

    from labdeck.tui.screens.shell.jump import JumpScreen

    app = make_app()
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("colon", "u", "s")
        await until(pilot, lambda: isinstance(app.screen, JumpScreen) and app.screen.text == "us",
                    "the prompt with what was typed")
        prompt = app.screen
        await pilot.hover("#jump-input")
        await pilot.hover("#jump-choices")
        await settle(pilot)
        assert app.screen is prompt and not prompt.answered and prompt.text == "us"
