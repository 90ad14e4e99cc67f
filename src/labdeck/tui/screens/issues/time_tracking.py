"""The time tracking dialog of the issues view: add spent time (the default), set or reset the estimate or
the time spent, with durations checked by GitLab's rules (`domain.durations`) before anything is sent; and
how the answer is checked after a lost write (`time_applied`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Input, Static

from labdeck.api.models.issues import TimeStats
from labdeck.domain.durations import DurationError, parse_duration
from labdeck.tui.kit.forms import FormDialog, Problem

TimeAction = Literal["time_estimate", "add_spent_time", "reset_time_estimate", "reset_spent_time"]


@dataclass(frozen=True)
class TimeRequest:
    """What the time tracking dialog asks for: the endpoint and, for estimate and spent, a duration."""

    action: TimeAction
    duration: str | None = None


def stats_text(stats: TimeStats | None) -> Text:
    if stats is None:
        return Text("no time tracked", style="dim")
    text = Text("estimate ", style="dim")
    text.append(stats.human_time_estimate or "none")
    text.append(" · spent ", style="dim")
    text.append(stats.human_total_time_spent or "none")
    return text


def time_applied(request: TimeRequest, before: TimeStats, after: TimeStats) -> bool:
    """Whether the stats read `after` a lost answer show `request` applied to those read `before` it."""
    if request.action == "reset_time_estimate":
        return after.time_estimate == 0
    if request.action == "reset_spent_time":
        return after.total_time_spent == 0
    seconds = parse_duration(request.duration or "")
    if request.action == "time_estimate":
        return after.time_estimate == seconds
    return after.total_time_spent == max(0, before.total_time_spent + seconds) != before.total_time_spent


# What enter and ctrl+s do in the time tracking form, said in the form: operators mostly log spent time.
TIME_DEFAULT = "enter, ctrl+s: add to the time spent (Set estimate: replace it)"


class TimeTrackingScreen(FormDialog[TimeRequest]):
    """Add or reset spent time, set or reset the estimate. Adding spent time is the default (the one primary
    button, what enter and ctrl+s press), and the form says so. A duration GitLab would not read (or a
    negative estimate) is refused here with the reason (`value`), and nothing is sent. Each button but
    Cancel submits with its own action (`action`); opened with `open_write_form`, it sends the request itself
    and stays open, duration kept, until it is done."""

    CSS_PATH = "issues.tcss"
    SUBMIT = "add_spent_time"  # the primary button: enter and ctrl+s press it
    ERROR = "issues-time-error"
    REFUSALS = (DurationError,)
    AUTO_FOCUS = "#issues-time-duration"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="issues_time.cancel")]

    def __init__(self, reference: str, stats: TimeStats | None) -> None:
        super().__init__()
        self.reference = reference
        self.stats = stats
        self.action: TimeAction = "add_spent_time"  # what the form sends: the button pressed last

    def compose(self) -> ComposeResult:
        with Vertical(classes="issues-dialog"):
            yield Static(Content.from_markup("Time tracking of [b]$ref[/b]", ref=self.reference))
            yield Static(stats_text(self.stats), id="issues-time-stats")
            yield Static("Duration (1mo 2w 3d 4h 5m, 3h30m; -30m removes spent time)")
            yield Input(placeholder="1h 30m", id="issues-time-duration")
            yield Static(Text(TIME_DEFAULT, style="dim"), id="issues-time-default")
            yield Static("", id="issues-time-error", markup=False)
            with Horizontal(classes="issues-dialog-buttons"):  # two rows: five buttons fit 60 columns
                yield Button("Add spent", id="add_spent_time", variant="primary")
                yield Button("Set estimate", id="time_estimate")
            with Horizontal(classes="issues-dialog-buttons"):
                yield Button("Reset estimate", id="reset_time_estimate")
                yield Button("Reset spent", id="reset_spent_time")
                yield Button("Cancel", id="cancel")

    def value(self) -> TimeRequest | Problem:
        """The request for `action` with the typed duration, or why GitLab would not take it."""
        action = self.action
        if action in ("reset_time_estimate", "reset_spent_time"):
            return TimeRequest(action)
        text = self.query_one("#issues-time-duration", Input).value.strip()
        try:
            seconds = parse_duration(text)
        except DurationError as exc:
            return Problem(str(exc))
        if action == "time_estimate" and seconds < 0:
            return Problem("an estimate cannot be negative")
        return TimeRequest(action, text)

    def show_problem(self, problem: Problem) -> None:
        self.query_one(f"#{self.ERROR}", Static).update(Text(problem.message, style="red"))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        event.prevent_default()  # not `FormDialog`'s rule: every button but Cancel submits
        if event.button.id == "cancel":
            self.cancel()
            return
        self.action = str(event.button.id)  # type: ignore[assignment]
        self.submit()

    def _set_busy(self, busy: bool) -> None:
        for button in self.query(Button):  # every button but Cancel sends
            button.disabled = busy and button.id != "cancel"
