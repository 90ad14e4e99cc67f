"""The foundations of `LabdeckApp`: the parts of its typed context, readable as the app's own attributes
(the shell and the tests read `app.session`, `app.jobs`; screens read `context_of(self)`), the status bar,
the theme and labdeck's state file, and the error policy: API and network errors of workers become
notifications, a lost session (`NotConnected`, from `ctx.services`) is said once, quietly, whatever
failed on it, every notification leaves without a secret, and anything unexpected is written to a
redacted crash log (the first error stays first) instead of Textual's crash screen, which prints local
variables."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import App, ScreenStackError
from textual.content import Content
from textual.screen import Screen

from labdeck.api.request_log import RequestLog
from labdeck.config.files import Config, ConfigError
from labdeck.config.state import State, save_state
from labdeck.tui.context import HasContext, NotConnected
from labdeck.tui.errors import (
    REDACTED,
    add_to_crash_log,
    is_expected,
    lost_write,
    redact,
    unwrap,
    write_crash_log,
)
from labdeck.tui.jobs import JobCentre
from labdeck.tui.session import Session
from labdeck.tui.textual_internals import stop_with_error
from labdeck.tui.themes import DEFAULT_THEME
from labdeck.tui.widgets.status_bar import StatusInfo
from labdeck.tui.workers import error_node, is_gone, is_shown, show_load_failure

NOT_CONNECTED = "No instance is connected: connect one to read this"


def size_classes(breakpoints: list[tuple[int, str]], width: int) -> dict[str, bool]:
    """The breakpoint classes of a screen `width` columns wide, as Textual's `Screen._on_resize` sets them:
    the class of the widest breakpoint the width reaches, the others off."""
    chosen = next((name for minimum, name in sorted(breakpoints, reverse=True) if width >= minimum), None)
    return {name: name == chosen for _, name in breakpoints}


class AppBase(HasContext, App[None]):
    """`LabdeckApp`'s base (see the module docstring)."""

    crash_dir: Path | None
    crash_log_path: Path | None
    _state_lock: threading.Lock
    _theme_ready: bool

    # -- the context's parts, as the app's own (tests and the shell read them here) ---------------------
    @property
    def config(self) -> Config:
        assert self.context.config is not None
        return self.context.config

    @config.setter
    def config(self, value: Config) -> None:
        self.context.config = value

    @property
    def state(self) -> State:
        assert self.context.state is not None
        return self.context.state

    @state.setter
    def state(self, value: State) -> None:
        self.context.state = value

    @property
    def session(self) -> Session | None:
        return self.context.session

    @session.setter
    def session(self, value: Session | None) -> None:
        self.context.session = value
        if value is not None:
            self._not_connected_said = False  # a session lost again is said again

    @property
    def read_only(self) -> bool:
        return self.context.read_only

    @read_only.setter
    def read_only(self, value: bool) -> None:
        self.context.read_only = value

    @property
    def jobs(self) -> JobCentre:
        assert self.context.jobs is not None
        return self.context.jobs

    @property
    def clock(self) -> Callable[[], float]:
        return self.context.clock

    @property
    def request_log(self) -> RequestLog:
        return self.context.request_log


    # -- themes ---------------------------------------------------------------------------------------
    def watch_theme(self, name: str) -> None:
        """Remember a theme picked in the app in labdeck's state (the config is never rewritten)."""
        if not self._theme_ready or (self.state.theme or self.config.theme or DEFAULT_THEME) == name:
            return
        self.remember(self.state.with_(theme=name))

    def _wire_download_folder(self) -> None:
        """Downloads and exports offer the last folder used, kept in labdeck's state file."""
        from labdeck.tui import downloads

        store = downloads.LAST_FOLDER_STORE
        store.folder = None  # this app's state decides, not an earlier app's memory
        store.load = lambda: self.state.download_dir
        store.save = lambda folder: self.remember(self.state.with_(download_dir=folder))

    def remember(self, state: State) -> None:
        """Keep `state` (theme, last download folder) and save it off the event loop; a failure to save is a
        warning, never the end of the session."""
        self.state = state
        self._save_state(state)

    @work(thread=True, group="state", exit_on_error=False)
    def _save_state(self, state: State) -> None:
        try:
            with self._state_lock:  # the latest state, whichever save runs last
                save_state(self.state)
        except ConfigError as error:
            self.call_from_thread(self.notify, str(error), title="State", severity="warning", markup=False)

    # -- screens --------------------------------------------------------------------------------------
    def push_screen(self, screen: Any, callback: Any = None, wait_for_dismiss: bool = False, *,
                    mode: str | None = None) -> Any:
        """Textual's `push_screen`, onto the stack of the area whose code asks (`navigation.caller_mode`)
        rather than the stack shown: a screen of an area in the background (re-read after an undo in
        `:journal`) opens what it opens on its own stack, and an area name keeps opening its own area."""
        from labdeck.tui.navigation import caller_mode

        if mode is None:
            mode = caller_mode(self)
        return super().push_screen(screen, callback, wait_for_dismiss, mode=mode)  # type: ignore[call-overload]

    def get_screen(self, *args: Any, **kwargs: Any) -> Any:
        """Textual's `get_screen` (every screen pushed or opened by a mode passes here): a screen not yet
        running starts with the size classes Textual's first `Resize` gives it (`-compact`/`-roomy`), so it
        is styled once, as it mounts, not a second time when that first resize changes its classes."""
        found = super().get_screen(*args, **kwargs)
        if not found.is_running:
            classes = size_classes(self.HORIZONTAL_BREAKPOINTS or [], self.size.width)
            found.update_classes(classes, update=False)
        return found

    # -- header ---------------------------------------------------------------------------------------
    def format_title(self, title: str, sub_title: str) -> Content:
        """The header always names the instance (`demo` in demo mode), first, whatever a screen puts in its
        own sub-title (watch mode's state, a project's path): `Users — demo · watching every 30s` (a
        narrow terminal cuts the screen's part, never the instance)."""
        instance = self.sub_title
        if instance and sub_title != instance:
            sub_title = f"{instance} · {sub_title}" if sub_title else instance
        return super().format_title(title, sub_title)

    # -- status ---------------------------------------------------------------------------------------
    def status_info(self, screen: Screen[Any]) -> StatusInfo:
        session = self.session
        loaded = getattr(screen, "data_loaded_at", None)
        user = session.user if session else None
        rate = session.client.rate_limit if session else None
        return StatusInfo(
            instance=session.name if session else "",
            instance_label=session.capabilities.label() if session else "",
            job_token=bool(session and session.settings.auth == "job"),
            read_only=self.read_only,
            username=user.username if user else None,
            is_admin=bool(user and user.is_admin),
            rate_remaining=rate.remaining if rate else None,
            rate_limit=rate.limit if rate else None,
            running_jobs=self.jobs.running,
            data_age=None if loaded is None else max(0.0, self.clock() - loaded),
        )

    def _refresh_status(self) -> None:
        try:
            screen = self.screen
        except Exception:  # no screen yet (during start)
            return
        refresh = getattr(screen, "refresh_status", None)
        if callable(refresh):
            refresh()

    # -- errors ---------------------------------------------------------------------------------------
    def notify(self, message: Any, *, title: str = "", severity: Any = "information",
               timeout: float | None = None, markup: bool = True) -> None:
        """Every notification (the app's, a screen's, a widget's) leaves without a secret: registered
        tokens and token shapes are redacted here, the one place they all pass."""
        secrets = self._secrets()
        if not isinstance(message, str):  # a Content or Text: redact its plain text, if need be
            plain = str(getattr(message, "plain", ""))
            if plain and redact(plain, secrets) != plain:
                message, markup = redact(plain, secrets), False
        else:
            clean = redact(message, secrets)
            if markup and clean != message:  # the marker must not read as a markup tag
                clean = clean.replace(REDACTED, "\\" + REDACTED)
            message = clean
        clean_title = redact(title, secrets)
        if clean_title != title:
            clean_title = clean_title.replace(REDACTED, "\\" + REDACTED) if markup else clean_title
        super().notify(message, title=clean_title, severity=severity, timeout=timeout, markup=markup)

    def _secrets(self) -> list[str]:
        return self.context.secrets()

    def _describe_job_error(self, error: BaseException) -> str:
        """A job's failure message; an unexpected error is also written to a crash log."""
        if is_expected(error):
            return self._describe(error)
        try:
            path = write_crash_log(error, directory=self.crash_dir, secrets=self._secrets())
        except OSError:
            return self._describe(error)
        return f"{self._describe(error)} (report: {path})"

    def _describe(self, error: BaseException) -> str:
        """`describe_error` with this session's own token removed too (not every token looks like one)."""
        return self.context.describe(error)

    def _reread_after_lost_write(self, node: object) -> None:
        """Re-read what the screen of `node` (a worker's) shows, after a write whose answer was lost."""
        if node is None or is_gone(self, node):
            return
        try:
            screen = node if isinstance(node, Screen) else node.screen  # type: ignore[attr-defined]
        except Exception:  # not on a screen (any more)
            return
        refresh = getattr(screen, "refresh_data", None)
        if callable(refresh):
            refresh()

    _not_connected_said = False

    def say_not_connected(self) -> None:
        """Something needed the session and there is none (`NotConnected`): one quiet notification, however
        many workers and actions fail on it, until a session is connected again."""
        if not self._not_connected_said:
            self._not_connected_said = True
            self.notify(NOT_CONNECTED, severity="warning", markup=False, timeout=6)

    def _handle_exception(self, error: Exception) -> None:
        """API/network errors from workers become notifications; a lost session is said once
        (`say_not_connected`: from a worker, an action or a handler, never a crash); anything else is logged
        and ends the app with a short message (Textual's own handler would print a traceback with local
        variables)."""
        from_worker = type(error).__name__ == "WorkerFailed"
        cause = unwrap(error)
        if isinstance(cause, NotConnected):
            self.say_not_connected()
            return
        if from_worker and is_expected(cause):
            node = error_node()
            if lost_write(cause):  # "the server may have applied this": re-read what the screen shows
                self.notify(self._describe(cause), title="Not confirmed", severity="warning", markup=False,
                            timeout=10)
                self._reread_after_lost_write(node)
                return
            shown_in = [] if is_gone(self, node) else show_load_failure(node, self._describe(cause))
            if not (shown_in and not is_shown(node)):  # a background tab says it where its rows would be
                self.notify(self._describe(cause), title="Error", severity="error", markup=False, timeout=8)
            return
        if is_gone(self, error_node()):  # about a screen that has closed: nothing left to tell or break
            self.log.warning(f"dropped an error of a closed screen: {type(cause).__name__}")
            return
        if isinstance(cause, ScreenStackError) and not self.screen_stack:
            # code still running while the app closes (a palette action awaiting its area) met no screen
            self.log.warning("dropped an error of code that outlived the app's screens")
            return
        stop_with_error(self, cause)  # run_test re-raises it; a plain run never prints it
        if is_expected(cause):
            self.panic(Text(f"labdeck stopped: {self._describe(cause)}"))
            return
        try:
            if self.crash_log_path is not None:  # a later error while stopping: the first one stays first
                add_to_crash_log(self.crash_log_path, cause, secrets=self._secrets())
                return
            self.crash_log_path = write_crash_log(cause, directory=self.crash_dir, secrets=self._secrets())
            where = f"A report was written to {self.crash_log_path}"
        except OSError as log_error:
            where = f"The crash report could not be written ({log_error.strerror})"
        self.panic(Text(f"labdeck stopped after an unexpected error ({type(cause).__name__}). {where}"))

