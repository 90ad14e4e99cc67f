"""The key router: every key goes where the operator sent it, in the order typed, however fast it comes.

Textual reads a key, hands it to whatever has the focus at that instant and reads the next key at once. A
key whose effect is to move the focus (`/` shows a list's filter field, `f` the issues query, `a` `e` `c` `x`
`t` open a form or a dialog, ctrl+s a confirmation, enter answers the jump prompt) therefore raced every key
typed after it, and a fast terminal, a paste, a busy machine or a slow instance lost the race: `/api-gateway`
typed in one burst on `:projects` opened "Archive project" (the `a` reached the table before the filter had
the focus); `flabel:bug` became `bel:bug`; `:issues` typed after a confirmed save went into the field the
save was started from.

So the app lets one key in at a time, through one queue (`KeyRouter`, one per app, in its context):

- Every key and paste the terminal sends joins the queue (`LabdeckApp.on_event` asks `takes` before
  anything else sees the event), mouse events excepted.
- The router lets the first key of the queue in (posts it back to the app, marked as its turn; the app then
  handles it as Textual handles any key) only once the app is **settled**:
  1. *quiet*: no message is waiting or being handled, and no `call_next` callback is due, in the app, in any
     screen of the current stack or in any of their widgets, every one of them is mounted, and no
     `call_after_refresh` callback waits on those screens (`textual_internals.pump_busy`,
     `refresh_pending`; Textual's messages that only schedule drawing do not count: a key's effects on the
     focus and on what is open never wait for a repaint). So the previous key's effects have all happened:
     its binding's action ran, the focus it asked for was applied (and its field selected its text), the
     screen it pushed is mounted, the dialog it dismissed is off the stack and its callback has run;
  2. *ready*: the screen on top says it takes keys (`KeyTarget.ready_for_keys`: a form once its first field
     has the focus, a full screen once it has drawn with its focus on something shown,
     `screens/form_keys.FormKeys`);
  3. nothing declared with `wait_for` is still running: a form sending its own write (`WriteForm`) keeps the
     keys typed meanwhile until it has closed, so they reach the list it was opened from, in order (the
     form focuses that list when it closes with a result: `writes.open_write_form`). A question the write
     asks from over the form (GitLab before 15.4: "change rules in two steps?") takes the keys at once: a
     write holds them only while its own screen is on top.
- So the key that opened a field, a form or a dialog is followed by every key typed after it, in order,
  into what it opened, once that is ready; nothing typed after it reaches the screen beneath. The jump
  prompt is one case: its enter opens an area, and the keys after it wait until the area is mounted with
  its focus set. Forms need no queue of their own: keys never reach a form before its first field has the
  focus.
- One exception keeps typing fast: characters (and pastes) typed into a text field that keeps the focus go
  in together, a run at a time (`_next_turn`), and the next run follows as soon as the app has passed the
  last one on (`_follows_in_field`): the field's own queue keeps them in order, and a character typed into
  one of labdeck's fields moves no focus. A run stops before a key with a priority binding (`:` from a path
  field opens the jump prompt: what follows waits for the prompt) and before any other key (enter, tab,
  escape, editing keys), which waits for the settled app as above.
- Waiting is bounded: a screen that is not ready (or a write still running) after `GIVE_UP` seconds gets
  the keys anyway, and a key whose effects are still running after `QUIET_LIMIT` (a handler awaiting a
  request) lets the next in; keys reaching an app whose screens are gone (closing) are dropped.

What it costs: while a key is in turn, the router reads the app's state after every turn of the event loop
(`SPINS` times), then every `POLL` seconds; a read stops at the first busy node, so a full walk of the
widgets happens about once a key. `tests/bench/bench_key_router.py` measures the latency it adds to each
character typed into a list's filter (200 characters in one burst, and typed at a steady pace): well under
a millisecond a key.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from collections import deque
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from textual import events
from textual.actions import parse
from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Input, TextArea

from labdeck.tui.textual_internals import priority_keys, pump_busy, refresh_pending

if TYPE_CHECKING:
    from textual.app import App
    from textual.screen import Screen

TEXT_FIELDS = (Input, TextArea)
MAX_HELD = 4096  # keys kept at most (a stuck app must not keep a whole flood)
MAX_RUN = 64  # characters let in together into a text field
GIVE_UP = 10.0  # seconds: a screen not ready by then (or a write still running) gets the keys anyway
QUIET_LIMIT = 5.0  # seconds: a key whose effects still run by then (a handler awaiting) lets the next in
SPINS = 12  # reads of the app's state one event-loop turn apart, before waiting `POLL` between reads
POLL = 0.002


@runtime_checkable
class KeyTarget(Protocol):
    """A screen that says when it can take keys (`FormKeys`: once its first field has the focus)."""

    def ready_for_keys(self) -> bool: ...


def _finished(opening: Any) -> bool:
    """Whether a worker or an asyncio future/task declared with `wait_for` is over."""
    finished = getattr(opening, "is_finished", None)
    if isinstance(finished, bool):
        return finished
    done = getattr(opening, "done", None)
    return bool(done()) if callable(done) else True


def _typed(event: events.Key | events.Paste) -> bool:
    """A character or a paste: what a text field takes as text, in its own `on_key`/`on_paste`."""
    return isinstance(event, events.Paste) or bool(event.is_printable and event.character)


def _alive(app: App[Any]) -> bool:
    try:
        return app.is_running and bool(app.screen_stack)
    except Exception:  # the app is closing: its modes are going
        return False


class KeyRouter:
    """The app's one queue of keys (see the module docstring)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self.enabled = True  # off: keys go straight to Textual, as without the router (the benchmark)
        self.reads = 0  # how many times the app's state was read (the benchmark reports it)
        self._clock = clock
        self._queue: deque[events.Key | events.Paste] = deque()
        self._released: deque[events.Key | events.Paste] = deque()  # let in, not yet at the app's handler
        self._turn: events.Key | events.Paste | None = None  # the last let in, until its effects happened
        self._field: Widget | None = None  # the text field that had the focus when it reached the app
        self._openings: list[tuple[Any, Screen[Any] | None]] = []
        self._given_up: weakref.WeakSet[Screen[Any]] = weakref.WeakSet()
        self._task: asyncio.Task[None] | None = None

    @property
    def idle(self) -> bool:
        """No key waits and none is in turn (its effects have happened)."""
        return not self._queue and self._turn is None

    @property
    def waiting(self) -> int:
        """How many keys wait for their turn."""
        return len(self._queue)

    def takes(self, app: App[Any], event: events.Event) -> bool:
        """Asked by the app for every event: True when `event` is a key or paste the router keeps for its
        turn; False lets it through (a key whose turn it is, a key bubbling back, anything else)."""
        if not self.enabled or not isinstance(event, events.Key | events.Paste) or event.is_forwarded:
            return False
        if self._released and event is self._released[0]:
            self._released.popleft()
            self._field = app.focused if isinstance(app.focused, TEXT_FIELDS) else None
            return False
        if len(self._queue) < MAX_HELD:
            self._queue.append(event)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run(app))
        return True

    def wait_for(self, opening: Any, screen: Screen[Any] | None = None) -> None:
        """Keep the keys typed from now on until `opening` (a `Worker`, an asyncio task or future) is over:
        a form that waits for data before its fields exist, a form sending its write. Given the `screen` it
        runs for, it holds no key while a screen opened over that one is on top (a question it asks)."""
        self._openings = [held for held in self._openings if not _finished(held[0])]
        self._openings.append((opening, screen))

    def stop(self) -> None:
        """The app is closing: drop the kept keys."""
        self._queue.clear()
        self._released.clear()
        self._turn = None
        if self._task is not None:
            self._task.cancel()

    # -- the turns ------------------------------------------------------------------------------------
    async def _run(self, app: App[Any]) -> None:
        try:
            while self._queue or self._turn is not None:
                await self._until_settled(app)
                self._turn = None
                if not _alive(app):
                    self._queue.clear()
                    break
                if not self._queue:
                    break
                for event in self._next_turn(app):
                    self._turn = event
                    self._released.append(event)
                    if not app.post_message(event):  # the app is closing
                        self.stop()
                        break
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a bug here must not swallow every key from now on
            self._queue.clear()
            self._released.clear()
            self._turn = None
            app._handle_exception(error)

    def _next_turn(self, app: App[Any]) -> list[events.Key | events.Paste]:
        """The next key; with a text field focused, the whole run of characters typed next (none of them a
        key with a priority binding, which the app runs before the field sees it: `:` from a path field)."""
        turn = [self._queue.popleft()]
        if not isinstance(app.focused, TEXT_FIELDS) or not _typed(turn[0]):
            return turn
        priority = priority_keys(app)
        if isinstance(turn[0], events.Key) and turn[0].key in priority:
            return turn
        while self._queue and len(turn) < MAX_RUN and _typed(self._queue[0]):
            following = self._queue[0]
            if isinstance(following, events.Key) and following.key in priority:
                break
            turn.append(self._queue.popleft())
        return turn

    async def _until_settled(self, app: App[Any]) -> None:
        started = self._clock()
        reads = 0
        while _alive(app):
            if self._follows_in_field(app):
                return
            ready = self._ready(app)
            if ready and self._quiet(app):
                return
            waited = self._clock() - started
            if not ready and waited >= GIVE_UP:
                self._give_up(app)
                return
            if ready and waited >= QUIET_LIMIT:
                self._released.clear()  # a key let in that never reached the app holds nothing up
                return
            reads += 1
            await asyncio.sleep(0 if reads <= SPINS else POLL)

    def _follows_in_field(self, app: App[Any]) -> bool:
        """Characters typed into a text field that keeps the focus, followed by more characters: those may
        follow as soon as the app has passed the first ones on (the field's own queue keeps them in order,
        and a character typed into one of labdeck's fields moves no focus), so typing into a filter does
        not wait for the list to filter and draw between letters. Anything else waits (editing keys too:
        the field runs them as bindings, once they have come back up to the app)."""
        previous, field = self._turn, self._field
        if previous is None or field is None or self._released or not self._queue or self._openings:
            return False
        if not (_typed(previous) and _typed(self._queue[0])):
            return False
        return app.focused is field and field.screen is app.screen and not pump_busy(app)

    def _give_up(self, app: App[Any]) -> None:
        """Waited `GIVE_UP` seconds for a screen or a write: keys go to the screen as it is."""
        self._openings.clear()
        self._released.clear()
        try:
            self._given_up.add(app.screen)
        except Exception:  # no screen: nothing to remember
            pass

    def _ready(self, app: App[Any]) -> bool:
        """The screen on top takes keys and nothing declared with `wait_for` still runs (under it)."""
        screen = app.screen
        if self._openings:
            self._openings = [held for held in self._openings if not _finished(held[0])]
            stack = app.screen_stack
            if any(over is None or over is screen or over not in stack for _, over in self._openings):
                return False  # (a screen opened over `over` takes the keys: a question it asks)
        if screen in self._given_up:
            return True
        if not screen.is_mounted:
            return False
        return not isinstance(screen, KeyTarget) or screen.ready_for_keys()

    def _quiet(self, app: App[Any]) -> bool:
        """Nothing left to do from the keys so far (see the module docstring), the likeliest busy first."""
        self.reads += 1
        if self._released:
            return False  # a key let in has not even reached the app's handler
        stack = app.screen_stack
        focused = app.focused
        path = focused.ancestors_with_self if focused is not None else []
        if pump_busy(app) or any(pump_busy(node) for node in path):
            return False
        for screen in stack:
            if pump_busy(screen) or refresh_pending(screen):
                return False
        return not any(pump_busy(node) for screen in stack for node in screen.walk_children())


class PromptKeys:
    """A prompt whose keys the app reads in its own turn, in the order they were typed (the `:` jump).

    Textual hands a key to the focused field's own queue, so an enter and the keys typed after it were read
    by different readers: a fast burst could put `users:` in the field, or let escapes pass the enter and
    close the screens under the prompt. Here the app calls `read(event)` for every key and paste while the
    prompt is on top, before anything else sees it: letters go into the field at once (or are kept until
    the field exists), the field's editing keys run at once, and enter and escape answer at once. A key read
    after the answer finds the prompt already off the stack (or the type-ahead queue holding)."""

    answered = False
    _typed = ""  # letters read before the field was mounted
    _field: Input | None = None

    def adopt(self, field: Input) -> None:
        """The field is mounted: it takes what was typed so far, and every key from now on."""
        self._field = field
        self.set_text(self._typed)

    def set_text(self, text: str) -> None:
        """Replace what is typed (a completion), the cursor after it."""
        if self._field is None:
            self._typed = text
        else:
            self._field.value = text
            self._field.cursor_position = len(text)

    @property
    def text(self) -> str:
        return self._field.value if self._field is not None else self._typed

    def read(self, event: events.Event) -> bool:
        """Take `event` now; False leaves it to Textual (keys the prompt has no use for, bindings)."""
        if self.answered:
            return False
        if isinstance(event, events.Paste):
            lines = event.text.splitlines()
            self._type(lines[0] if lines else "")
            return True
        if not isinstance(event, events.Key):
            return False
        if event.key == "enter":
            self.submit_text(self.text)
        elif event.key == "escape":
            self.cancel_prompt()
        elif event.key == "tab":
            self.complete_text()
        elif event.is_printable and event.character:
            self._type(event.character)
        elif self._field is None:
            if event.key != "backspace":
                return False
            self._typed = self._typed[:-1]
        else:
            return _run_field_key(self._field, event.key)
        return True

    def _type(self, text: str) -> None:
        field = self._field
        if field is None:
            self._typed += text
        elif field.selection.is_empty:
            field.insert_text_at_cursor(text)
        else:
            field.replace(text, *field.selection)

    # (not `on_enter` and the like: Textual would call those for its own `Enter` event, the mouse entering)
    def submit_text(self, text: str) -> None:
        """Answer with `text` (exactly the letters typed before the enter)."""

    def cancel_prompt(self) -> None:
        """Close without an answer."""

    def complete_text(self) -> None:
        """Complete the name typed so far."""


def _run_field_key(field: Input, key: str) -> bool:
    """Run the field's own binding for `key` now (cursor moves, deletions); False when it has none."""
    for binding in Binding.make_bindings(type(field).BINDINGS):
        if binding.key == key and binding.action != "submit":
            name, arguments = parse(binding.action)[1:]
            getattr(field, f"action_{name}")(*arguments)
            return True
    return False
