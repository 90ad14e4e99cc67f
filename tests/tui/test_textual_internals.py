"""Textual's private parts that labdeck touches live in one module, checked against one Textual release: a
new release fails here first, so the module is read again before anything else breaks."""

from __future__ import annotations

import re
from importlib.metadata import version
from itertools import pairwise
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from textual.app import App
from textual.command import CommandList
from textual.content import Content

from labdeck.tui import textual_internals

SRC = Path(__file__).resolve().parents[2] / "src" / "labdeck"


def test_the_installed_textual_is_the_one_the_internals_were_checked_against() -> None:
    assert version("textual") == textual_internals.CHECKED_AGAINST, (
        "read src/labdeck/tui/textual_internals.py against the new Textual, then update CHECKED_AGAINST")


def test_every_private_name_used_still_exists() -> None:
    app = App[None]()
    for name in ("_screen_stacks", "_return_code", "_exception", "_exception_event"):
        assert hasattr(app, name), name
    assert callable(getattr(CommandList, "_update_lines", None))
    from textual.message import Message
    from textual.widgets import Input, TextArea

    for field in (Input, TextArea):  # the field key fix wraps their own key handlers
        assert "_on_key" in field.__dict__, field
    message = Message()
    assert message._stop_propagation is False and message._no_default_action is False


def test_the_pilot_idle_wait_the_tests_tune_still_reads_its_two_names() -> None:
    """tests/conftest.py shortens Pilot's idle step through these two module globals."""
    import inspect

    import textual._wait

    source = inspect.getsource(textual._wait.wait_for_idle)
    assert "sleep(SLEEP_GRANULARITY)" in source and "< SLEEP_IDLE" in source
    assert textual._wait.SLEEP_IDLE == textual._wait.SLEEP_GRANULARITY / 20


def test_the_apps_of_the_tests_do_not_animate() -> None:
    """`tests/conftest.py` sets `textual.constants.TEXTUAL_ANIMATIONS`; a new app takes its level from it."""
    from textual.app import App

    assert App().animation_level == "none"


def test_no_other_module_touches_textual_internals() -> None:
    private = re.compile(r"^\s*(from|import) textual(\.\w+)*\._|from textual\.widgets\._")
    offenders = [str(path.relative_to(SRC)) for path in SRC.rglob("*.py")
                 if path.name != "textual_internals.py"
                 and any(private.search(line) for line in path.read_text().splitlines())]
    assert offenders == []


def test_a_notification_of_content_is_shown_as_that_content() -> None:
    text = Content.assemble("[b]from the server[/b]")
    assert Content.from_markup(text) is text  # what the toast does with a notification's message
    shown: list[object] = []
    app = App[None]()
    app.notify = lambda message, **options: shown.append(message)
    textual_internals.notify_content(app, text, timeout=3)
    assert shown == [text]


@settings(max_examples=200, deadline=None)
@given(pasted=st.text(alphabet=st.sampled_from(["a", "Z", "\x1b", "[", "2", "0", "1", "~", "\r", "\n", "é",
                                                "\x07"]), max_size=40),
       cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=6))
def test_a_bracketed_paste_arrives_whole_in_order_wherever_reads_cut_it(pasted: str, cuts: list[int]) -> None:
    """Textual's parser (with the paste fix on) turns a bracketed paste holding any ESC into one `Paste`,
    in order, controls visible, followed by the key typed after it, wherever the terminal's reads cut the
    bytes. (Without the fix `XXX` ESC `[31mYYY` came out as keys `^[31mYYY` before a paste `XXX`.)"""
    from textual import events
    from textual._xterm_parser import XTermParser

    from labdeck.domain.text import typed_text

    textual_internals.install_paste_fix()
    body = pasted
    while textual_internals.PASTE_END in body:  # a paste never holds its own end marker
        body = body.replace(textual_internals.PASTE_END, "")
    data = f"{textual_internals.PASTE_START}{body}{textual_internals.PASTE_END}q"
    parser = XTermParser()
    bounds = sorted({0, len(data), *(c for c in cuts if c < len(data))})
    got = [event for start, end in pairwise(bounds) for event in parser.feed(data[start:end])]
    pastes = [e for e in got if isinstance(e, events.Paste)]
    keys = [e.key for e in got if isinstance(e, events.Key)]
    assert [p.text for p in pastes] == ([typed_text(body)] if body else [""]) and keys == ["q"]


def test_the_paste_reader_changes_nothing_outside_a_paste() -> None:
    reader = textual_internals.PasteReader()
    assert reader.rewrite("\x1b") == "\x1b"  # a lone escape key is not held back
    assert reader.rewrite("\x1b[A\x1b[20") == "\x1b[A\x1b[20"
    assert reader.rewrite("0~x\x1by\x1b[20") == "0~x\ufdd0y"  # inside: ESC hidden, a cut end marker held
    assert reader.rewrite("1~\x1b") == "\x1b[201~\x1b"


async def test_a_header_whose_title_is_gone_takes_a_new_title_quietly() -> None:
    """The key storm's crash: the title changed while a screen's header was losing its title widget."""
    from textual.app import ComposeResult
    from textual.widgets._header import HeaderTitle

    class WithHeader(App[None]):
        def compose(self) -> ComposeResult:
            yield textual_internals.Header()

    app = WithHeader()
    async with app.run_test() as pilot:
        app.title = "first"
        await pilot.pause()
        assert "first" in str(app.query_one(HeaderTitle).render())
        await app.query_one(HeaderTitle).remove()
        app.title = "second"  # Textual's own header raised NoMatches here, ending the app
        await pilot.pause()
        assert app.is_running


async def test_the_key_router_reads_whether_a_node_still_has_work() -> None:
    """`pump_busy` (the count of messages being handled, the queue, `call_next` callbacks, mounting) and
    `priority_keys`, as the key router reads them: a node handling a message or holding one is busy; one
    holding only drawing messages is not."""
    from textual import messages
    from textual.message import Message

    textual_internals.install_handling_count()

    class Ping(Message, bubble=False):
        pass

    during: list[bool] = []

    class Probe(App[None]):
        def on_ping(self, message: Ping) -> None:
            during.append(textual_internals.pump_busy(self))

    app = Probe()
    async with app.run_test() as pilot:
        await pilot.pause()
        screen = app.screen
        assert not textual_internals.pump_busy(screen) and not textual_internals.pump_busy(app)
        screen.post_message(messages.Layout(screen))
        assert not textual_internals.pump_busy(screen)  # drawing only
        screen.post_message(Ping())
        assert textual_internals.pump_busy(screen)
        screen.call_next(lambda: None)
        app.post_message(Ping())
        await pilot.pause()
        assert during == [True] and not textual_internals.pump_busy(app)
        assert not textual_internals.pump_busy(screen) and not textual_internals.refresh_pending(screen)
        assert "ctrl+q" in textual_internals.priority_keys(app)


async def test_a_backspace_and_a_letter_read_together_are_both_typed() -> None:
    """`tmux send-keys -H 7f 71`: a backspace and a `q` in one terminal read. Textual's parser gives both
    keys, and the driver posts both to the app at once; the app forwards both to the focused field before
    the backspace has come back up to the app, where Textual runs a field's own bindings (`delete_left`),
    so the `q` was typed first and the backspace then deleted it: `teal` stayed `teal` (a colour fixed by
    backspace-and-retype became `t`). With the fix the field runs its own bindings in turn: `teaq`."""
    from textual import events
    from textual._xterm_parser import XTermParser
    from textual.app import ComposeResult
    from textual.widgets import Input

    textual_internals.install_field_key_fix()
    keys = list(XTermParser().feed("\x7fq"))
    assert [key.key for key in keys if isinstance(key, events.Key)] == ["backspace", "q"]

    class OneField(App[None]):
        def compose(self) -> ComposeResult:
            yield Input("teal")

    app = OneField()
    async with app.run_test() as pilot:
        field = app.query_one(Input)
        field.focus()
        field.cursor_position = len(field.value)
        await pilot.pause()
        for key in keys:  # as the driver does with one read: every event posted at once
            app.post_message(key)
        await pilot.pause()
        await pilot.pause()
        assert field.value == "teaq"


def _classes_below(root: type) -> list[type]:
    found, todo = [], [root]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return list(dict.fromkeys(found))


def test_the_planned_dispatch_finds_the_handlers_textual_finds_for_every_node_and_message() -> None:
    """`install_dispatch_plans`: for every class of node (Textual's and labdeck's) and every class of
    message, the same handlers in the same order as Textual's own walk of the class hierarchy."""
    import importlib
    import pkgutil

    from textual.message import Message
    from textual.message_pump import MessagePump

    import labdeck.tui

    for module in pkgutil.walk_packages(labdeck.tui.__path__, "labdeck.tui."):
        importlib.import_module(module.name)
    pumps = [cls for cls in _classes_below(MessagePump) if cls.__module__.startswith(("labdeck", "textual"))]
    kinds = [kind for kind in _classes_below(Message) if hasattr(kind, "handler_name")]
    assert len(pumps) > 150 and len(kinds) > 100
    compared = 0
    for pump in pumps:
        node = pump.__new__(pump)
        for kind in kinds:
            message = kind.__new__(kind)
            message._no_default_action, message._sender = False, None
            name = kind.handler_name
            textual = [(cls, method.__func__) for cls, method in
                       textual_internals._original_dispatch_methods(node, name, message)]
            planned = [(cls, method.__func__) for cls, method in
                       textual_internals._planned_dispatch_methods(node, name, message)]
            assert planned == textual, (pump, kind)
            compared += bool(textual)
    assert compared > 500  # pairs that have a handler at all


async def test_planned_dispatch_matches_on_selectors_and_stops_at_prevent_default() -> None:
    from textual import on
    from textual.app import ComposeResult
    from textual.widgets import Button

    heard: list[str] = []

    class Base(App[None]):
        def compose(self) -> ComposeResult:
            yield Button("yes", id="yes")
            yield Button("no", id="no")

        def on_button_pressed(self, event: Button.Pressed) -> None:
            heard.append(f"base {event.button.id}")

    class Derived(Base):
        @on(Button.Pressed, "#yes")
        def pressed_yes(self, event: Button.Pressed) -> None:
            heard.append("derived yes")
            event.prevent_default()  # the base's handler is not called for #yes

    from textual.message_pump import MessagePump

    assert MessagePump._get_dispatch_methods is textual_internals._planned_dispatch_methods
    async with Derived().run_test() as pilot:
        await pilot.click("#no")
        await pilot.click("#yes")
        await pilot.pause()
    assert heard == ["base no", "derived yes"]



def test_a_callback_s_parameters_are_counted_once_for_each_function_in_the_source() -> None:
    """`install_parameter_counts`: the count Textual takes from `inspect.signature`, kept by code object;
    a function whose signature is not its code's (`functools.wraps`, `__signature__`) is asked each time."""
    import functools
    import inspect

    from textual import _callback

    def make(offset: int) -> Any:
        def callback(first: int, second: int = 2, *rest: int, key: int = 0) -> int:
            return first + offset
        return callback

    def plain(one: int) -> None:
        pass

    @functools.wraps(plain)
    def wrapped(*args: Any, **kwargs: Any) -> None:
        pass

    def declared(*args: Any) -> None:
        pass

    declared.__signature__ = inspect.Signature([inspect.Parameter("a", inspect.Parameter.POSITIONAL_ONLY)])  # type: ignore[attr-defined]
    callables = [make(1), make(2), lambda: None, lambda a, b: None, plain, wrapped, declared,
                 functools.partial(plain, 1), print, type("Call", (), {"__call__": lambda self, x: x})()]
    counted = textual_internals._count_parameters_by_code
    for _ in range(2):  # asked again, from what was kept
        for func in callables:
            assert counted(func) == len(inspect.signature(func).parameters), func
    assert make(3).__code__ in textual_internals._counts_by_code
    assert wrapped.__code__ not in textual_internals._counts_by_code  # (its count is `plain`'s: 1, not 2)
    assert _callback._count_parameters is textual_internals._count_parameters_by_code
