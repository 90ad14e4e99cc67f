"""The project view's form dialogs. A `SubmitDialog` (a `WriteForm`) runs its request itself and stays
open on a refusal, showing the server's message (a refused tag keeps what was typed), and after a lost
answer re-reads to find out; it dismisses with the result on success and with None on Cancel/escape.
`ForkDialog` only gathers the fork's options (the fork itself runs as a job), and `PathPrompt` asks for a
file path.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, Select, Static

from labdeck.api.errors import ApiError
from labdeck.domain.digits import parse_digits
from labdeck.tui.errors import describe_error
from labdeck.tui.kit.forms import FormDialog, Problem
from labdeck.tui.screens.confirm import Cancellable
from labdeck.tui.screens.form_keys import FormKeys
from labdeck.tui.widgets.path_input import PathInput
from labdeck.tui.writes import may_have_applied

T = TypeVar("T")


def error_text(error: BaseException) -> str:
    """The server's own message for an API refusal, else a one-line description."""
    return error.message if isinstance(error, ApiError) else describe_error(error)


def read_pem(path_text: str) -> str | None:
    """The text of a PEM file (None when no path was given); `OSError`/`ValueError` when unreadable."""
    path_text = path_text.strip()
    if not path_text:
        return None
    text = Path(path_text).expanduser().read_text(encoding="utf-8")
    if "-----BEGIN" not in text:
        raise ValueError(f"{path_text} is not a PEM file")
    return text


class SubmitDialog(FormDialog[T]):
    """A form whose `collect()` reads its fields into a value (a `ValueError`/`OSError` there is shown and
    nothing is sent). Opened with `open_write_form`, it sends the write itself (`WriteForm`): refusals and
    lost answers are shown inside the dialog, what was typed is kept."""

    CSS_PATH = "dialogs.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="project_dialog.cancel")]
    TITLE_TEXT = ""
    SUBMIT_LABEL = "Save"
    SUBMIT, ERROR = "submit", "dialog-error"
    REFUSALS = (ValueError, OSError)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content(self.TITLE_TEXT), classes="dialog-title")
            yield from self.compose_fields()
            yield Static("", markup=False, id="dialog-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button(self.SUBMIT_LABEL, id="submit", variant="primary")

    def compose_fields(self) -> ComposeResult:
        yield from ()

    def collect(self) -> Any:
        """The value typed (what the write is sent with); `ValueError`/`OSError` when it is not usable."""
        raise NotImplementedError

    def show_error(self, message: str) -> None:
        self.query_one("#dialog-error", Static).update(Content(message))

    @property
    def error_message(self) -> str:
        return str(self.query_one("#dialog-error", Static).render())

    def describe_failure(self, error: BaseException) -> str:
        if isinstance(error, OSError):
            return f"Cannot read the file: {error.strerror or error}"
        if isinstance(error, ApiError) and not may_have_applied(error):
            return error.message  # the server's own words
        return super().describe_failure(error)

    def value(self) -> T | Problem:
        """What `collect()` reads; a problem with what was typed is shown, nothing sent."""
        try:
            value: T = self.collect()
        except (OSError, ValueError) as error:
            return Problem(self.describe_failure(error))
        self.show_error("")
        return value

    def show_problem(self, problem: Problem) -> None:
        self.show_error(problem.message)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()

    def run_submit(self) -> None:
        self.submit()


@dataclass(frozen=True)
class NewTag:
    name: str
    ref: str
    message: str | None


class TagCreateDialog(SubmitDialog[Any]):
    """New tag: name, ref (branch, tag or commit) and, for an annotated tag, a message."""

    TITLE_TEXT = "New tag"
    SUBMIT_LABEL = "Create"
    AUTO_FOCUS = "#tag-name"

    def __init__(self, default_ref: str) -> None:
        super().__init__()
        self.default_ref = default_ref

    def compose_fields(self) -> ComposeResult:
        yield Label("Tag name")
        yield Input(id="tag-name", placeholder="v1.2.3")
        yield Label("From ref (branch, tag or commit)")
        yield Input(self.default_ref, id="tag-ref")
        yield Label("Message (makes an annotated tag; empty for a lightweight one)")
        yield Input(id="tag-message")

    def collect(self) -> NewTag:
        name = self.query_one("#tag-name", Input).value.strip()
        ref = self.query_one("#tag-ref", Input).value.strip()
        if not name or not ref:
            raise ValueError("A tag needs a name and a ref")
        return NewTag(name, ref, self.query_one("#tag-message", Input).value.strip() or None)


@dataclass(frozen=True)
class DomainRequest:
    name: str
    auto_ssl: bool
    certificate: str | None
    key: str | None


class DomainDialog(SubmitDialog[Any]):
    """Add a Pages domain, or replace a domain's certificate: PEM files for certificate and key."""

    SUBMIT_LABEL = "Save"

    def __init__(self, *, domain: str | None = None, auto_ssl: bool = False) -> None:
        super().__init__()
        self.domain = domain
        self.auto_ssl = auto_ssl
        self.TITLE_TEXT = f"Certificate of {domain}" if domain else "New Pages domain"

    def compose_fields(self) -> ComposeResult:
        if self.domain is None:
            yield Label("Domain")
            yield Input(id="domain-name", placeholder="docs.example.com")
        yield Checkbox("Automatic certificate (Let's Encrypt)", self.auto_ssl, id="domain-auto-ssl")
        yield Label("Certificate PEM file (leaf first, then intermediates)")
        yield Input(id="domain-cert", placeholder="~/certs/fullchain.pem")
        yield Label("Private key PEM file")
        yield Input(id="domain-key", placeholder="~/certs/privkey.pem")

    def collect(self) -> DomainRequest:
        name = self.domain or self.query_one("#domain-name", Input).value.strip()
        if not name:
            raise ValueError("A domain is required")
        certificate = read_pem(self.query_one("#domain-cert", Input).value)
        key = read_pem(self.query_one("#domain-key", Input).value)
        return DomainRequest(name, self.query_one("#domain-auto-ssl", Checkbox).value, certificate, key)


@dataclass(frozen=True)
class ForkRequest:
    namespace_path: str | None
    name: str | None
    path: str | None
    visibility: str | None
    branches: str | None
    mr_default_target_self: bool
    namespace_id: int | None = None


def fork_target(text: str | None) -> tuple[int | None, str | None]:
    """The fork's namespace as typed: a number is a namespace id, anything else a path (`group/sub`)."""
    text = (text or "").strip().strip("/")
    if not text:
        return None, None
    number = parse_digits(text)
    return (number, None) if number is not None else (None, text)


class ForkDialog(FormKeys, Cancellable[ForkRequest | None], ModalScreen[ForkRequest | None]):
    """The fork's options; empty fields take GitLab's defaults (personal namespace, same name and path)."""

    SENDS_NO_WRITE = "gathers a fork's options: the fork runs as a job, whose result says a lost answer"

    CSS_PATH = "dialogs.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="fork_dialog.cancel")]
    AUTO_FOCUS = "#fork-namespace"

    def __init__(self, source: str) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            title = Content.from_markup("Fork [b]$source[/b]", source=self.source)
            yield Static(title, classes="dialog-title")
            yield Label("Namespace id or path (empty: your personal namespace)")
            yield PathInput(kind="group", id="fork-namespace", placeholder="group/subgroup or 42")
            yield Label("Name (empty: the same as the source)")
            yield Input(id="fork-name", placeholder="name")
            yield Label("Path (empty: the same as the source)")
            yield Input(id="fork-path", placeholder="path")
            yield Label("Visibility")
            yield Select([("private", "private"), ("internal", "internal"), ("public", "public")],
                         prompt="as the source", id="fork-visibility")
            yield Label("Branches (empty: all)")
            yield Input(id="fork-branches", placeholder="main")
            yield Checkbox("Merge requests target the fork itself", id="fork-target-self")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Fork", id="submit", variant="primary")

    def request(self) -> ForkRequest:
        def value(selector: str) -> str | None:
            return self.query_one(selector, Input).value.strip() or None

        visibility = self.query_one("#fork-visibility", Select).value
        namespace_id, namespace_path = fork_target(value("#fork-namespace"))
        return ForkRequest(namespace_path, value("#fork-name"), value("#fork-path"),
                           visibility if isinstance(visibility, str) else None, value("#fork-branches"),
                           self.query_one("#fork-target-self", Checkbox).value, namespace_id)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "submit":
            self.dismiss(self.request())
        else:
            self.cancel()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(self.request())


class PathPrompt(FormKeys, ModalScreen[str | None]):
    """One line of input (a file path); enter gives it, escape gives None."""

    SENDS_NO_WRITE = "asks for a local file path; nothing is typed that a lost answer could lose"

    CSS_PATH = "dialogs.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="path_prompt.cancel")]
    AUTO_FOCUS = "#prompt-value"

    def __init__(self, title: str, placeholder: str = "") -> None:
        super().__init__()
        self.prompt_title = title
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content(self.prompt_title), classes="dialog-title")
            yield Input(id="prompt-value", placeholder=self.placeholder)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
