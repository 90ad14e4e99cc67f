"""First run (no instance configured): add an instance (URL, auth kind, token or token command), check it
with `GET /user`, and write the config. Dismisses with `(config, settings)`, or None when abandoned.
"""

from __future__ import annotations

import asyncio

from pydantic import SecretStr
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Button, Input, Label, Select, Static

from labdeck.api.errors import LabdeckError
from labdeck.api.settings import ConnectionSettings
from labdeck.config.files import Config, InstanceConfig, save_config
from labdeck.config.urls import transport_warnings, url_problem
from labdeck.tui.errors import describe_error
from labdeck.tui.screens.form_keys import FormKeys
from labdeck.tui.session import open_session

AUTH_CHOICES = [("Personal/project/group access token (PRIVATE-TOKEN)", "private"),
                ("OAuth token (Authorization: Bearer)", "oauth"), ("CI job token (JOB-TOKEN)", "job")]


class FirstRunScreen(FormKeys, Screen[tuple[Config, ConnectionSettings] | None]):
    CSS_PATH = "first_run.tcss"
    TITLE = "Add an instance"
    BINDINGS = [Binding("escape", "quit_setup", "Quit", id="first_run.quit")]

    def __init__(self, config: Config) -> None:
        super().__init__()
        self.config = config

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="first-run"):
            yield Static(Content.from_markup(
                "[b]Welcome to labdeck.[/b] No instance is configured yet: add one. "
                "The config will be written to $path (mode 0600).", path=str(self.config.path)), id="intro")
            yield Label("Name")
            yield Input(value="work", id="name")
            yield Label("URL")
            yield Input(placeholder="https://gitlab.example.com", id="url")
            yield Label("Authentication")
            yield Select(AUTH_CHOICES, value="private", allow_blank=False, id="auth")
            yield Label("Token command (recommended, e.g. pass show gitlab/work)")
            yield Input(placeholder="command that prints the token", id="token-command")
            yield Label("…or the token itself (stored in the config file)")
            yield Input(password=True, placeholder="glpat-…", id="token")
            with Horizontal(id="first-run-buttons"):
                yield Button("Check and save", id="save", variant="primary")
                yield Button("Quit", id="quit")
            yield Static("", id="first-run-status")

    def _value(self, widget_id: str) -> str:
        return self.query_one(f"#{widget_id}", Input).value.strip()

    def instance_from_form(self) -> InstanceConfig:
        name, url = self._value("name") or "work", self._value("url").rstrip("/")
        problem = url_problem(url)  # the loader's own rule: what is saved here loads
        if problem is not None:
            raise LabdeckError(f"URL {problem}")
        command = self._value("token-command")
        token = self.query_one("#token", Input).value.strip()
        if not command and not token:
            raise LabdeckError("Give a token command or a token")
        auth = str(self.query_one("#auth", Select).value)
        return InstanceConfig(url=url, name=name, auth=auth,  # type: ignore[arg-type]
                              token_command=command or None,
                              token=SecretStr(token) if token and not command else None,
                              config_path=self.config.path)

    def _status(self, text: str, *, error: bool = False) -> None:
        widget = self.query_one("#first-run-status", Static)
        widget.set_class(error, "error")
        widget.update(Content(text))

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "quit":
            self.dismiss(None)
        elif event.button.id == "save":
            try:
                instance = self.instance_from_form()
            except LabdeckError as error:
                self._status(describe_error(error), error=True)
                return
            self._status("Checking…")
            self.check_and_save(instance)

    @work(exclusive=True, group="first-run")
    async def check_and_save(self, instance: InstanceConfig) -> None:
        app = self.app
        try:
            settings = await asyncio.to_thread(instance.connection)
            session = open_session(settings, request_log=app.request_log,  # type: ignore[attr-defined]
                                   transport_factory=app.transport_factory)  # type: ignore[attr-defined]
            try:
                user = await session.load_user()
            finally:
                await session.close()
            config = self.config.with_instance(instance.name, instance).with_default_instance(instance.name)
            await asyncio.to_thread(save_config, config)
        except LabdeckError as error:
            self._status(describe_error(error), error=True)
            return
        warnings = "".join(f" Note: the URL {text}." for text in transport_warnings(instance.url))
        self._status(f"Signed in as {user.username}; saved.{warnings}")
        for text in transport_warnings(instance.url):
            self.app.notify(f"{instance.name}: the URL {text}", title="Config", severity="warning",
                            markup=False, timeout=10)
        self.dismiss((config, settings))

    def action_quit_setup(self) -> None:
        self.dismiss(None)
