"""Every dialog of labdeck, built with sample data, for the 80x24 layout tests and the snapshots
(`DIALOGS`: name -> a function that returns the dialog, ready for `app.push_screen`)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.content import Content
from textual.screen import Screen

from labdeck.api.models.deployments import Deployment
from labdeck.api.models.issues import TimeStats
from labdeck.api.models.labels import GroupLabel
from labdeck.api.models.variables import CiVariable
from labdeck.domain.moderation import Account, UserState, allowed_operations
from labdeck.tui.jobs import ItemResult, Job
from labdeck.tui.kit.members import member_form
from labdeck.tui.kit.variables import variable_form
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.deployments.dialogs import (
    CreateDeploymentDialog,
    DeploymentDetailScreen,
    StatusDialog,
)
from labdeck.tui.screens.deployments.protected_environments import AddRuleDialog
from labdeck.tui.screens.groups.badge_form import badge_form
from labdeck.tui.screens.groups.file_forms import folder_form, import_form
from labdeck.tui.screens.groups.forms import label_form
from labdeck.tui.screens.issues.dialogs import (
    BulkMenu,
    CommentScreen,
    EditIssueScreen,
    LinkMenu,
    PromptScreen,
)
from labdeck.tui.screens.issues.time_tracking import TimeTrackingScreen
from labdeck.tui.screens.projects.dialogs import DomainDialog, ForkDialog, PathPrompt, TagCreateDialog
from labdeck.tui.screens.shell.help import HelpRow, HelpScreen
from labdeck.tui.screens.shell.jobs import JobResultsScreen
from labdeck.tui.screens.shell.jump import JumpScreen
from labdeck.tui.screens.users.users import OperationMenu


async def _no_merge_requests() -> list[Any]:
    return []


def _deployment() -> Deployment:
    return Deployment.model_validate({
        "id": 41, "iid": 7, "ref": "main", "sha": "0123456789abcdef", "status": "running",
        "environment": {"id": 1, "name": "production"},
        "user": {"id": 1, "username": "root", "name": "Administrator"}})


def _job() -> Job:
    job = Job(id=1, title="Close 3 issues", total=3, done=3)
    job.results = [ItemResult(f"acme/app#{n}", n != 2, "closed" if n != 2 else "403 Forbidden")
                   for n in (1, 2, 3)]
    return job


def _variable() -> CiVariable:
    return CiVariable(key="DEPLOY_TOKEN", value="s3cret-value", variable_type="env_var", protected=True,
                      masked=True, environment_scope="production", description="deploy key")


DIALOGS: dict[str, Callable[[], Screen[Any]]] = {
    "confirm": lambda: ConfirmScreen("Delete tag", "Delete the tag v1.0? Releases lose their tag.",
                                     confirm_label="Delete"),
    "type_to_confirm": lambda: TypeToConfirmScreen("Ban user", "Type the username to ban alice.", "alice",
                                                   confirm_label="Ban"),
    "jump": JumpScreen,
    "help": lambda: HelpScreen("Issues", [HelpRow("f", "Query", "issues.query"),
                                          HelpRow("b", "Bulk", "issues.bulk")]),
    "job_results": lambda: JobResultsScreen(_job()),
    "group_member_form": lambda: member_form("group", date(2026, 1, 1)),
    "group_label_form": lambda: label_form(GroupLabel(id=1, name="bug", color="#ff0000")),
    "group_badge_form": lambda: badge_form("coverage", "https://example.com/%{project_path}",
                                           "https://example.com/badge.svg"),
    "group_variable_form": lambda: variable_form(_variable()),
    "instance_variable_form": lambda: variable_form(None, instance=True),
    "group_folder_form": lambda: folder_form("the group export", Path("/tmp/labdeck-downloads")),
    "group_import_form": lambda: import_form(5),
    "issues_bulk_menu": lambda: BulkMenu(3),
    "issues_link_menu": lambda: LinkMenu("acme/app#7", ["https://example.com/a", "https://example.com/b"]),
    "issues_prompt": lambda: PromptScreen("Labels to add (comma-separated)", "bug, needs-review"),
    "issues_edit": lambda: EditIssueScreen("acme/app#7", "Crash on start", ["bug", "p1"],
                                           "It crashes.\n\nSteps:\n1. start"),
    "issues_comment": lambda: CommentScreen(Content("Comment on acme/app#7"), "Looks good\nbut see the docs"),
    "issues_time": lambda: TimeTrackingScreen("acme/app#7", TimeStats(time_estimate=12600,
                                                                      human_time_estimate="3h 30m")),
    "deployment_status": lambda: StatusDialog(_deployment()),
    "deployment_create": lambda: CreateDeploymentDialog("production"),
    "deployment_detail": lambda: DeploymentDetailScreen(_deployment(), _no_merge_requests),
    "protected_rule": lambda: AddRuleDialog("production", ["production", "staging"]),
    "project_tag_create": lambda: TagCreateDialog("main"),
    "project_domain_new": lambda: DomainDialog(),
    "project_domain_certificate": lambda: DomainDialog(domain="docs.example.com"),
    "project_fork": lambda: ForkDialog("acme/platform/api"),
    "project_path_prompt": lambda: PathPrompt("Upload a certificate", "~/certs/fullchain.pem"),
    "users_operations": lambda: OperationMenu(
        Text("Moderate alice"),
        [(r.op, r.enabled, r.reason) for r in allowed_operations(Account(UserState.ACTIVE))]),  # type: ignore[misc]
}
