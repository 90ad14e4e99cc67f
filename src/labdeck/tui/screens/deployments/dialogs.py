"""Dialogs of `:deployments`: change a deployment's status (only the statuses its current one allows),
create a deployment record, and a deployment's detail (job, commit, user, shipped merge requests).

Server text is rendered as `rich.text.Text`, never as markup.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Label, OptionList, Select, Static
from textual.widgets.option_list import Option

from labdeck.api.models.deployments import Deployment, ShippedMergeRequest
from labdeck.domain.deployments import SETTABLE_STATUSES, allowed_transitions, sha_problem
from labdeck.tui.kit.forms import FormDialog, Problem

STATUS_STYLES: dict[str, str] = {"success": "green", "failed": "red", "canceled": "bright_black",
                                 "running": "cyan", "created": "yellow", "blocked": "magenta",
                                 "skipped": "bright_black"}


def status_text(status: str) -> Text:
    """A status in its colour."""
    return Text(status, style=STATUS_STYLES.get(status, ""))


def _stamp(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M") if value is not None else "—"


def deployment_title(deployment: Deployment) -> Text:
    title = Text(f"Deployment #{deployment.iid or deployment.id} to ", style="bold")
    title.append(deployment.environment_name or "?", style="bold")
    title.append("  ")
    title.append_text(status_text(deployment.status))
    return title


def deployment_detail(deployment: Deployment) -> Text:
    """Everything known about a deployment, for the detail pane and the detail dialog."""
    out = deployment_title(deployment)

    def line(label: str, value: str) -> None:
        out.append(f"\n{label:>10}  ", style="dim")
        out.append(value)

    line("ref", f"{deployment.ref}")
    line("sha", deployment.sha)
    line("user", (deployment.user.username or "") if deployment.user else "—")
    line("created", _stamp(deployment.created_at))
    line("updated", _stamp(deployment.updated_at))
    job = deployment.deployable
    if job is None:
        line("job", "none (created through the API)")
        return out
    line("job", f"{job.name or ''} #{job.id} ({job.status or ''}, stage {job.stage or ''})")
    line("started", _stamp(job.started_at))
    line("finished", _stamp(job.finished_at))
    if job.user is not None:
        line("run by", job.user.username or "")
    if job.commit is not None:
        line("commit", f"{job.commit.short_id or job.commit.id[:8]} {job.commit.title or ''}")
        line("author", f"{job.commit.author_name or ''} <{job.commit.author_email or ''}>")
    if job.pipeline is not None:
        line("pipeline", f"#{job.pipeline.id} {job.pipeline.status or ''}")
    return out


class StatusDialog(FormDialog[str]):
    """Choose a deployment's new status among those its current status allows (enter on one submits it).
    Opened with `open_write_form`, it sets the status itself and stays open until it is set."""

    CSS_PATH = "deployments.tcss"
    AUTO_FOCUS = "#status-options"
    ERROR = "status-error"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="deployment_status.cancel")]

    def __init__(self, deployment: Deployment) -> None:
        super().__init__()
        self.deployment = deployment
        self.choices = allowed_transitions(deployment.status)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(deployment_title(self.deployment), classes="dialog-title")
            if self.choices:
                yield OptionList(*[Option(status_text(s), id=s) for s in self.choices], id="status-options")
            else:
                yield Static("No status change is allowed from here.", id="status-none")
            error = Static("", markup=False, id="status-error", classes="dialog-error")
            error.display = False  # shown when the change is refused or its answer lost
            yield error
            yield Static("enter: set status · escape: cancel", classes="dialog-hint")

    def value(self) -> str | Problem:
        """The highlighted status, or why there is none."""
        options = self.query("#status-options").results(OptionList)
        highlighted = next((o.highlighted_option for o in options), None)
        if highlighted is None or highlighted.id not in self.choices:
            return Problem("No status change is allowed from here.")
        return str(highlighted.id)

    def show_problem(self, problem: Problem) -> None:
        self.show_form_message(problem.message)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.submit()


@dataclass(frozen=True)
class NewDeployment:
    environment: str
    ref: str
    sha: str
    tag: bool
    status: str


class CreateDeploymentDialog(FormDialog[NewDeployment]):
    """A deployment record: environment, ref, sha, tag, and its status (GitLab requires one of
    `running`, `success`, `failed`, `canceled`: a record made through the API is never `created`)."""

    CSS_PATH = "deployments.tcss"
    AUTO_FOCUS = "#new-environment"
    SUBMIT, ERROR = "new-create", "new-error"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="deployment_create.cancel")]

    def __init__(self, environment: str = "") -> None:
        super().__init__()
        self.environment = environment

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static("New deployment record", classes="dialog-title")
            yield Label("Environment")  # every field has a label: a placeholder is gone once typed in
            yield Input(self.environment, placeholder="production", id="new-environment")
            yield Label("Ref (branch or tag)")
            yield Input(placeholder="main, v1.2.3", id="new-ref")
            yield Label("Commit SHA")
            yield Input(placeholder="0123abcd…", id="new-sha")
            yield Checkbox("ref is a tag", id="new-tag")
            yield Label("Initial status")
            yield Select([(s, s) for s in SETTABLE_STATUSES], value="running", allow_blank=False,
                         id="new-status")
            yield Static("", markup=False, id="new-error", classes="dialog-error")
            with Horizontal(classes="dialog-buttons"):
                yield Button("Cancel", id="new-cancel")
                yield Button("Create", id="new-create", variant="primary")

    def value(self) -> NewDeployment | Problem:
        """The form's deployment, or what is missing."""
        fields = {name: self.query_one(f"#new-{name}", Input).value.strip() for name in ("environment", "ref",
                                                                                          "sha")}
        missing = [name for name, value in fields.items() if not value]
        if missing:
            return Problem(f"{', '.join(missing)} required")
        if (problem := sha_problem(fields["sha"])) is not None:
            return Problem(problem)
        status = self.query_one("#new-status", Select).value
        if not isinstance(status, str) or status not in SETTABLE_STATUSES:
            return Problem("status required")
        return NewDeployment(fields["environment"], fields["ref"], fields["sha"],
                             self.query_one("#new-tag", Checkbox).value, status)


MergeRequestsFn = Callable[[], Awaitable[list[ShippedMergeRequest]]]


def merge_requests_text(mrs: list[ShippedMergeRequest]) -> Text:
    if not mrs:
        return Text("No merge requests shipped with this deployment.", style="dim")
    out = Text(f"{len(mrs)} merge request(s) shipped:", style="bold")
    for mr in mrs:
        out.append(f"\n  {mr.reference}  ", style="cyan")
        out.append(mr.title)
        if mr.author is not None:
            out.append(f"  by {mr.author.username or ''}", style="dim")
    return out


class DeploymentDetailScreen(ModalScreen[None]):
    """A deployment's job, commit and user, and the merge requests it shipped (loaded on open)."""

    SENDS_NO_WRITE = "shows a deployment; sends nothing"

    CSS_PATH = "deployments.tcss"
    BINDINGS = [Binding("escape", "close", "Close", id="deployment_detail.close")]

    def __init__(self, deployment: Deployment, merge_requests: MergeRequestsFn) -> None:
        super().__init__()
        self.deployment = deployment
        self.fetch = merge_requests

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog-box detail-box"):
            yield Static(deployment_detail(self.deployment), id="detail-body")
            yield Static(Text("Loading merge requests…", style="dim"), id="detail-mrs")
            yield Static("escape: close", classes="dialog-hint")

    def on_mount(self) -> None:
        self.load()

    @work(exclusive=True, group="deployment-detail")
    async def load(self) -> None:
        mrs = await self.fetch()
        self.query_one("#detail-mrs", Static).update(merge_requests_text(mrs))

    def action_close(self) -> None:
        self.dismiss(None)
