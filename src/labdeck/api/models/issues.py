"""Issue resources (GitLab's API docs, "Issues"): the issue with its labels (names, or details when
`with_labels_details=true`), milestone, time stats and references; notes, to-do items and the merge
requests an issue relates to or is closed by; and the result of one item of a bulk action."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final

from pydantic import field_validator

from labdeck.api.models.base import SANITISED as BASE_SANITISED
from labdeck.api.models.base import ApiModel
from labdeck.api.models.users import UserRef

# `Issue` parts validated inside an issue skip their own walk when the context carries `SANITISED` (what
# `parse_one`, `parse_many` and `api.issues.parse_issue_list` pass); parsed on their own, they sanitise.
SANITISED: Final = BASE_SANITISED


class _Part(ApiModel):
    """A part of an issue."""


class IssueUser(UserRef):
    """A user reference inside an issue."""


class LabelDetail(_Part):
    """A label as `with_labels_details=true` shows it."""

    name: str
    id: int | None = None
    color: str | None = None
    text_color: str | None = None
    description: str | None = None
    description_html: str | None = None


class Milestone(_Part):
    id: int
    iid: int | None = None
    project_id: int | None = None
    title: str = ""
    description: str | None = None
    state: str | None = None
    due_date: date | None = None
    web_url: str | None = None


class TimeStats(_Part):
    time_estimate: int = 0
    total_time_spent: int = 0
    human_time_estimate: str | None = None
    human_total_time_spent: str | None = None


class References(_Part):
    short: str | None = None
    relative: str | None = None
    full: str | None = None


class Issue(ApiModel):
    """One issue of a listing or of `GET /projects/:id/issues/:iid`. Parse many with
    `api.issues.parse_issue_list` (one walk for control characters, or none for the client's clean pages)."""

    id: int
    iid: int
    project_id: int
    title: str = ""
    description: str | None = None
    state: str = "opened"
    created_at: datetime | None = None
    updated_at: datetime | None = None
    closed_at: datetime | None = None
    closed_by: IssueUser | None = None
    labels: list[LabelDetail] = []
    milestone: Milestone | None = None
    assignees: list[IssueUser] = []
    author: IssueUser | None = None
    issue_type: str | None = None
    confidential: bool = False
    discussion_locked: bool | None = None
    due_date: date | None = None
    web_url: str | None = None
    references: References | None = None
    time_stats: TimeStats | None = None
    upvotes: int = 0
    downvotes: int = 0
    user_notes_count: int = 0
    merge_requests_count: int = 0
    weight: int | None = None

    @field_validator("labels", mode="before")
    @classmethod
    def _label_names(cls, value: Any) -> Any:
        """Plain listings send label names; keep one shape (details with only `name` set)."""
        if isinstance(value, list):
            return [{"name": item} if isinstance(item, str) else item for item in value]
        return value

    @property
    def label_names(self) -> list[str]:
        return [label.name for label in self.labels]

    @property
    def reference(self) -> str:
        """`group/project#12`: the full reference (for copying)."""
        if self.references is not None and self.references.full:
            return self.references.full
        return f"#{self.iid}"

    @property
    def assignee_usernames(self) -> list[str]:
        return [a.username or str(a.id) for a in self.assignees]


class Note(ApiModel):
    id: int
    body: str = ""
    author: UserRef | None = None
    created_at: datetime | None = None
    system: bool = False
    confidential: bool | None = None
    noteable_iid: int | None = None
    commands_changes: dict[str, Any] | None = None


class Todo(ApiModel):
    id: int
    action_name: str | None = None
    target_type: str | None = None
    target_url: str | None = None
    state: str | None = None
    body: str | None = None
    created_at: datetime | None = None


class IssueMergeRequest(ApiModel):
    """A merge request as `related_merge_requests` and `closed_by` list it."""

    id: int
    iid: int
    project_id: int | None = None
    title: str = ""
    state: str | None = None
    web_url: str | None = None
    references: References | None = None
    author: UserRef | None = None
    source_branch: str | None = None
    target_branch: str | None = None

    @property
    def reference(self) -> str:
        if self.references is not None and self.references.full:
            return self.references.full
        return f"!{self.iid}"


@dataclass(frozen=True, slots=True)
class BulkItemResult:
    """The outcome of one issue of a bulk action: `ok`, the HTTP status when known, and the message
    (the server's on a refusal)."""

    reference: str
    ok: bool
    status: int | None
    message: str
    issue: Issue | None = None
