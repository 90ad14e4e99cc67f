"""`LabdeckApp`: the shell that opens the session (instance, client, user), starts themes and the keymap, and
navigates (home, `:` jump, palette, help, back, quit). Every key passes the one key router first
(`type_ahead.KeyRouter`: one key at a time, each once the last one's effects have happened). Its context's
parts, the status bar, the state file and the error policy are its base, `app_base.AppBase`.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path, PurePath
from typing import Any, cast

from textual import events, work
from textual.app import App
from textual.binding import Binding
from textual.screen import Screen

from labdeck.api.errors import LabdeckError
from labdeck.api.request_log import RequestLog
from labdeck.api.settings import ConnectionSettings
from labdeck.config.files import Config, ConfigError
from labdeck.config.state import State, load_state
from labdeck.domain.job_tokens import PROJECT_SCOPED_AREAS
from labdeck.tui import capabilities, commands
from labdeck.tui.app_base import AppBase
from labdeck.tui.area_commands import AreaActionCommands
from labdeck.tui.areas import Area, AreaRequest, find_area
from labdeck.tui.context import Context, NotConnected
from labdeck.tui.jobs import Job, JobCentre, JobOutcome
from labdeck.tui.keymap import binding_ids, check_keymap
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.navigation import HOME, Navigator, home_screen
from labdeck.tui.screens.form_keys import FormKeys, is_typing
from labdeck.tui.session import TransportFactory, cache_dir, open_session, state_dir
from labdeck.tui.textual_internals import (
    install_dismiss_guard,
    install_dispatch_plans,
    install_field_key_fix,
    install_handling_count,
    install_parameter_counts,
    install_paste_fix,
    install_styled_once,
)
from labdeck.tui.themes import DEFAULT_THEME, discover_themes, package_theme_dir, user_theme_dir
from labdeck.tui.type_ahead import PromptKeys
from labdeck.tui.widgets.path_input import PathInput

install_dismiss_guard()  # a screen dismisses only itself, once (fast keys reach a closing dialog)
install_paste_fix()  # a paste with an ESC in it arrives whole and in order, controls made visible
install_field_key_fix()  # a backspace and a letter read together: both typed, in order
install_handling_count()  # the key router sees which nodes are still handling a key's effects
install_styled_once()  # a screen opened is styled once, as it mounts (every stylesheet read at start)
install_dispatch_plans()  # a message's handlers found through the classes that have one
install_parameter_counts()  # a callback's parameters counted once for each function in the source

TYPED_IN_FIELDS = frozenset({"quit", "jump", "help", "refresh"})  # their keys are letters
_TUI = Path(__file__).parent


def stylesheets() -> list[str | PurePath]:
    """Every stylesheet of the console: `app.tcss`, then each screen's `.tcss` (the one its `CSS_PATH` names,
    beside it). The app reads them all as it starts, so a screen opened later finds its rules there already:
    Textual restyles every node of the app when a screen brings a stylesheet it has not read yet."""
    return [_TUI / "app.tcss", *sorted(path for path in _TUI.rglob("*.tcss") if path != _TUI / "app.tcss")]


class LabdeckApp(AppBase):
    """The labdeck console. `settings=None` opens the first-run screen to add an instance."""

    CSS_PATH = stylesheets()
    TITLE = "labdeck"
    DEFAULT_MODE = HOME
    MODES = {HOME: home_screen}  # each open area adds its own mode (see `navigation`)
    # Every screen carries `-compact` below 100 columns (an 80x24 terminal), `-roomy` from 100: stylesheets
    # rearrange a bar that does not fit (the users' condition tabs go above their search field).
    HORIZONTAL_BREAKPOINTS = [(0, "-compact"), (100, "-roomy")]
    # No stock system commands: one Quit (from the bindings), labdeck's themes only (ThemeCommands)
    COMMANDS = {commands.JumpCommands, commands.ThemeCommands, commands.InstanceCommands,
                commands.SavedViewCommands, commands.ScreenActionCommands, AreaActionCommands}
    BINDINGS = [
        Binding("q", "quit", "Quit", id="quit"),
        # ctrl+q quits from anywhere, a field included (where `q` is typed and `quit` is off): two bindings
        # of one key, the first that is on runs; one id, so `[keymap]` moves both
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="quit.anywhere"),
        Binding("ctrl+q", "quit_anywhere", "Quit", show=False, priority=True, id="quit.anywhere"),
        # a priority binding: the prompt opens while the app reads the key, so the keys typed after it go
        # to the prompt, never to the screen beneath (`:users` on the journal once ran `u`, undo)
        Binding("colon", "jump", "Jump", id="jump", priority=True),
        Binding("question_mark", "help", "Help", id="help"),
        Binding("f1", "help_anywhere", "Help", id="help.f1"),  # shown while typing, where ? is typed
        Binding("escape", "back", "Back", id="back"),
        Binding("r", "refresh", "Refresh", id="refresh"),
        Binding("ctrl+p", "command_palette", "Palette", id="palette", priority=True),
    ]

    def __init__(self, config: Config, settings: ConnectionSettings | None, *, read_only: bool = False,
                 transport_factory: TransportFactory | None = None,
                 clock: Callable[[], float] = time.monotonic, wall: Callable[[], float] = time.time,
                 crash_dir: Path | None = None, state: State | None = None) -> None:
        super().__init__()
        self.context = Context(config=config, state=state if state is not None else load_state(),
                               read_only=read_only or bool(settings and settings.read_only), clock=clock,
                               wall=wall, request_log=RequestLog(), shell=self)
        self._wire_download_folder()
        self._state_lock = threading.Lock()
        self.cli_read_only = read_only
        self.crash_dir = crash_dir
        self.crash_log_path: Path | None = None
        self.transport_factory = transport_factory
        self._initial_settings = settings
        self._read_only_said: set[str] = set()
        self.context.jobs = JobCentre(clock=clock, describe_error=self._describe_job_error)
        self.jobs.on_change(lambda job: self._refresh_status())
        self.jobs.on_done(self._job_done)
        self.config_warnings: list[str] = list(config.warnings)
        self._theme_ready = False
        self.labdeck_themes: list[str] = []
        self.navigator = Navigator(self)
        self._load_themes()

    # -- start ----------------------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        return home_screen()

    def on_mount(self) -> None:
        self._apply_keymap()
        if self._initial_settings is None:
            from labdeck.tui.screens.shell.first_run import FirstRunScreen

            self.push_screen(FirstRunScreen(self.config), self._first_run_done)
        else:
            self.connect(self._initial_settings)
        for warning in self.config_warnings:
            self.notify(warning, title="Config", severity="warning", markup=False, timeout=8)

    def _load_themes(self) -> None:
        found = discover_themes(package_theme_dir(), user_theme_dir(self.config.path))
        for theme in found.themes:
            self.register_theme(theme)
        self.labdeck_themes = found.names  # the palette offers these (labdeck's and the user's)
        self.config_warnings.extend(found.warnings)
        wanted = self.state.theme or self.config.theme or DEFAULT_THEME  # picked in the app, else config
        if wanted not in self.available_themes:
            self.config_warnings.append(f"theme {wanted!r} is not installed; using {DEFAULT_THEME}")
            wanted = DEFAULT_THEME
        self.theme = wanted
        self._theme_ready = True

    def known_screen_classes(self) -> list[type[Any]]:
        from labdeck.tui.screens.shell import catalogue

        return [type(self), *catalogue.screen_classes()]

    def _apply_keymap(self) -> None:
        if not self.config.keymap:
            return  # nothing to check: the catalogue imports every screen
        usable, warnings = check_keymap(dict(self.config.keymap), binding_ids(self.known_screen_classes()))
        self.config_warnings.extend(warnings)
        if usable:
            self.set_keymap(usable)

    # -- session --------------------------------------------------------------------------------------
    def connect(self, settings: ConnectionSettings) -> None:
        """Open (or switch to) an instance: a new client; the old one is closed."""
        old = self.session
        if self.cli_read_only and not settings.read_only:  # --read-only: the client enforces it too
            settings = dataclasses.replace(settings, read_only=True)
        persist_dir = cache_dir() if self.config.persist_cache else None
        self.session = open_session(settings, request_log=self.request_log,
                                    transport_factory=self.transport_factory, persist_dir=persist_dir,
                                    journal_dir=state_dir(), wall=self.context.wall)
        self.read_only = settings.read_only
        self.sub_title = settings.name
        if old is not None:
            self.run_worker(old.close(), group="close")
        self.refresh_bindings()
        self._refresh_status()
        self.load_user()

    @work(exclusive=True, group="user")
    async def load_user(self) -> None:
        session = self.session
        if session is None:
            return
        try:
            await session.load_user()
        except LabdeckError as error:
            if session.settings.auth != "job":
                raise
            self.notify(f"The CI job token was not accepted by GET /job: {self._describe(error)}. "
                        "A job token works only while its job runs.", title="Job token", severity="error",
                        markup=False, timeout=10)
        self._refresh_status()
        self.refresh_bindings()  # actions the instance cannot do disappear once its edition is known
        for screen in self.screen_stack:  # admin-only areas appear once the user is known
            refresh_areas = getattr(screen, "refresh_areas", None)
            if callable(refresh_areas):
                refresh_areas()

    def switch_instance(self, name: str) -> None:
        """Switch to a configured instance (resolving its token may run its token command)."""
        instance = self.config.instances.get(name)
        if instance is None:
            self.notify(f"No instance named {name}", severity="error", markup=False)
            return
        running = self.jobs.running
        if not running:
            self._switch_worker(name)
            return
        from labdeck.tui.screens.confirm import ConfirmScreen

        async def answered(yes: bool | None) -> None:
            if yes:  # the jobs talk to this instance's client, which the switch closes
                await self.jobs.cancel_all()
                self._switch_worker(name)

        self.push_screen(ConfirmScreen(f"Switch to {name}?", f"{running} task(s) still running on "
                                       f"{self.session.name if self.session else 'this instance'} will be "
                                       "cancelled.", confirm_label="Switch"), answered)

    @work(exclusive=True, group="switch", thread=True)
    def _switch_worker(self, name: str) -> None:
        try:
            settings = self.config.instances[name].connection()
        except ConfigError as error:
            self.call_from_thread(self.notify, str(error), severity="error", markup=False)
            return
        self.call_from_thread(self._switched, settings)

    def _switched(self, settings: ConnectionSettings) -> None:
        self.connect(settings)
        self.pop_to_home()
        self.notify(f"Switched to {settings.name}", markup=False)

    def _first_run_done(self, result: tuple[Config, ConnectionSettings] | None) -> None:
        if result is None:
            self.exit()
            return
        self.config, settings = result
        self.connect(settings)

    async def on_unmount(self) -> None:
        self.context.keys.stop()
        await self.jobs.cancel_all()
        if self.session is not None:
            await self.session.close()

    # -- navigation -----------------------------------------------------------------------------------
    def open_area(self, name: str, request: AreaRequest | None = None) -> Awaitable[Any] | None:
        """Show an area: the open one as it was left, else a new one (see `navigation`); awaiting the
        result waits for its screen to be mounted. None when it cannot be shown (said why), or when the
        app is closing (a palette action still running: Textual is closing the screens of every mode)."""
        if not self.is_running:
            return None
        area = find_area(name)
        if area is None:
            self.notify(f"No view called :{name}", severity="warning", markup=False)
            return None
        refusal = capabilities.area_refusal(self.context, area)
        if refusal is not None:
            self.notify(refusal, severity="warning", markup=False)
            return None
        job = self.session.job if self.session else None
        if request is None and job is not None and area.name in PROJECT_SCOPED_AREAS:
            request = AreaRequest(scope=job.project_path)  # a job token reaches its own project only
        return self.navigator.open(area, request)

    def area_allowed(self, area: Area) -> bool:
        """Whether the instance and the token can work in `area` (home, `:` and the palette ask)."""
        return capabilities.area_reason(self.context, area.name) is None

    def reach_note(self) -> str:
        """What the home says about the token's reach (empty for an ordinary token)."""
        session = self.session
        if session is None or session.settings.auth != "job":
            return ""
        if session.job is None:
            return ("Signed in with a CI job token: it reaches only its project's container registry, "
                    "deployments and environments.")
        return session.job.explanation()

    @property
    def is_admin(self) -> bool:
        """Whether the signed-in user is an administrator (False until the user is known)."""
        user = self.session.user if self.session else None
        return bool(user and user.is_admin)

    def pop_to_home(self) -> None:
        """Home, with every area closed."""
        self.navigator.close_all()

    def action_jump(self) -> None:
        from labdeck.tui.screens.shell.jump import JumpScreen

        def chosen(name: str | None) -> None:
            if name:  # the keys typed after the enter wait for the area, mounted and focused (the router)
                self.open_area(name)

        self.push_screen(JumpScreen(), chosen)

    def action_command_palette(self) -> None:
        from labdeck.tui.palette import LabdeckPalette

        # (Textual's hint wants an App[object]; App is invariant in its result type)
        if self.use_command_palette and not LabdeckPalette.is_open(cast("App[object]", self)):
            self.push_screen(LabdeckPalette(id="--command-palette"))

    def action_help(self) -> None:
        from labdeck.tui.screens.shell.help import HelpScreen

        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen.for_screen(self.screen))

    async def action_quit(self) -> None:
        """Quit; with jobs still running, ask first (quitting cancels them)."""
        running = self.jobs.running
        if not running:
            self.exit()
            return
        from labdeck.tui.screens.confirm import QuitScreen

        if any(isinstance(screen, QuitScreen) for screen in self.screen_stack):
            return  # already asking (a second `q` or ctrl+q)

        def answered(yes: bool | None) -> None:
            if yes:
                self.exit()

        self.push_screen(QuitScreen(self.jobs), answered)  # says what runs now, and follows it

    async def action_back(self) -> None:  # (async as Textual's, which it replaces)
        leave_field = getattr(self.screen, "leave_field", None)
        if callable(leave_field) and leave_field():
            return
        self.navigator.back()

    def action_help_anywhere(self) -> None:
        self.action_help()

    async def action_quit_anywhere(self) -> None:
        await self.action_quit()

    def action_help_quit(self) -> None:
        """ctrl+c (Textual's): copies in a field; elsewhere it says which key quits here, a chord before a
        letter (one that also quits from a field)."""
        keys = [(key, active.binding) for key, active in self.screen.active_bindings.items()
                if active.enabled and active.binding.action in ("quit", "quit_anywhere", "app.quit")]
        if keys:
            key, binding = min(keys, key=lambda found: len(found[0]) == 1)  # a chord first
            self.notify(f"Press {self.get_key_display(binding.with_key(key))} to quit labdeck",
                        title="Do you want to quit?", markup=False)

    def action_refresh(self) -> None:
        refresh = getattr(self.screen, "refresh_data", None)
        if callable(refresh):
            refresh()

    async def run_action(self, action: Any, default_namespace: Any = None, namespaces: Any = None) -> bool:
        """Every action, as Textual runs it; an action on a row whose id could not be read (tolerant
        reading) is refused here with the reason, before its screen sees it (`identity_refusal`), a row
        action takes the row the cursor shows as the key is pressed (`row_action_starts`), and an action
        that needs the session when there is none says so (`say_not_connected`)."""
        refuse = getattr(default_namespace, "identity_refusal", None)  # a LabdeckScreen's
        starts = getattr(default_namespace, "row_action_starts", None)  # the kit's (`PanePolicy`)
        if callable(starts) and isinstance(action, str):
            starts(action.split("(", 1)[0])
        if callable(refuse) and isinstance(action, str):
            refusal = refuse(action.split("(", 1)[0])
            if refusal is not None:
                self.notify(refusal, severity="warning", markup=False)
                return True
        try:
            return await super().run_action(action, default_namespace, namespaces)
        except NotConnected:  # an action read `ctx.services` with no session: said once, never a crash
            self.say_not_connected()
            return True

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back":
            return self.navigator.can_go_back()
        focused = self.focused  # a field of labdeck's own screens (not the palette's prompt)
        typing = is_typing(focused) and isinstance(getattr(focused, "screen", None), FormKeys)
        if action in ("help_anywhere", "quit_anywhere"):
            return typing
        if action == "jump" and isinstance(focused, PathInput):
            return True  # a path never holds `:`: the field leaves it to the jump prompt
        if typing and action in TYPED_IN_FIELDS:
            return False  # its letter goes into the field: the footer shows what works (f1, ctrl+p, esc)
        return True

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.Paste)) and not self.screen_stack:
            return  # a key still on its way while the app closes (a replayed one, or one bubbling back)
        if self.context.keys.takes(self, event):
            return  # kept for its turn: once the keys before it have had their effects (`type_ahead`)
        if self.screen_stack and isinstance(self.screen, PromptKeys) and self.screen.read(event):
            return  # the jump prompt's keys, read here in the order typed (`type_ahead.PromptKeys`)
        if isinstance(event, events.Key) and not event.is_forwarded:
            self._say_read_only(event.key)
        await super().on_event(event)

    def _say_read_only(self, key: str) -> None:
        """A key whose change read-only mode hides says so, once per action and session, instead of
        doing nothing silently (the pane kit's `read_only_refusal`)."""
        if not self.read_only or not self.screen_stack or is_typing(self.focused):
            return
        nodes = self.focused.ancestors_with_self if self.focused is not None else [self.screen]
        for node in nodes:
            said = node.read_only_refusal(key) if isinstance(node, PanePolicy) else None
            if said is not None:
                if said not in self._read_only_said:
                    self._read_only_said.add(said)
                    self.notify(said, severity="warning", markup=False, timeout=4)
                return

    # -- jobs -----------------------------------------------------------------------------------------
    def start_job(self, title: str, function: Callable[[Job], Any], *, total: int | None = None) -> Job:
        return self.jobs.start(title, function, total=total)

    def _job_done(self, job: Job) -> None:
        """Say how a task ended, by its outcome (`Job.outcome`: the one rule `:tasks` shows too)."""
        self._refresh_status()
        outcome = job.outcome
        if outcome is JobOutcome.SUCCEEDED:
            self.notify(f"{job.title}: done", title="Task finished", markup=False)
        elif outcome is JobOutcome.PARTLY_FAILED:
            self.notify(f"{job.title}: {job.outcome_text()}", title="Task partly failed", markup=False,
                        severity="warning")
        elif outcome is JobOutcome.FAILED:
            self.notify(f"{job.title}: {job.error or job.outcome_text()}", title="Task failed",
                        severity="error", markup=False)
        else:
            self.notify(f"{job.title}: cancelled", title="Task cancelled", markup=False)
