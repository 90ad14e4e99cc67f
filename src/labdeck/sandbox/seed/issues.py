"""The issues area's records: labels (with colours and priorities), milestones, issues, notes, award
emoji, to-do items and the merge requests that relate to or close issues; `add_issue` and `add_note`.

The `large` scale's `LARGE_ISSUES` generated issues are built
when the area is first used (`issues_data()`) or in the background (`build_in_background`), so that the
sandbox starts as fast as before. Issues are kept in id order; a listing filters that list and sorts the
result once per filter set.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import TYPE_CHECKING

from labdeck.sandbox.store import Project, Store

if TYPE_CHECKING:
    pass

AREA = "issues"
LARGE_ISSUES = 50_000



@dataclass(slots=True)
class Label:
    id: int
    name: str
    color: str
    description: str
    priority: int | None

    @property
    def text_color(self) -> str:
        red, green, blue = (int(self.color[i:i + 2], 16) for i in (1, 3, 5))
        return "#1F1E24" if (red * 299 + green * 587 + blue * 114) / 1000 > 128 else "#FFFFFF"


@dataclass(slots=True)
class Milestone:
    id: int
    iid: int
    project_id: int
    title: str
    state: str
    created_at: datetime
    due_date: date | None
    description: str = ""


@dataclass(slots=True)
class Issue:
    id: int
    iid: int
    project_id: int
    title: str
    description: str
    author_id: int
    created_at: datetime
    updated_at: datetime
    state: str = "opened"
    closed_at: datetime | None = None
    closed_by_id: int | None = None
    labels: list[str] = field(default_factory=list)
    assignee_ids: list[int] = field(default_factory=list)
    milestone_id: int | None = None
    issue_type: str = "issue"
    confidential: bool = False
    discussion_locked: bool = False
    due_date: date | None = None
    reactions: list[tuple[int, str]] = field(default_factory=list)  # (user id, emoji name)
    time_estimate: int = 0
    total_time_spent: int = 0
    weight: int | None = None
    relative_position: int = 0
    epic_id: int | None = None


@dataclass(slots=True)
class Note:
    id: int
    issue_id: int
    author_id: int
    body: str
    created_at: datetime
    system: bool = False
    confidential: bool = False


@dataclass(slots=True)
class MergeRequest:
    id: int
    iid: int
    project_id: int
    title: str
    state: str  # opened, merged, closed
    author_id: int
    source_branch: str
    created_at: datetime
    related: list[int] = field(default_factory=list)  # issue ids it mentions
    closes: list[int] = field(default_factory=list)  # issue ids it closes when merged


@dataclass(slots=True)
class Todo:
    id: int
    user_id: int
    issue_id: int
    author_id: int
    created_at: datetime


@dataclass
class IssuesData:
    """Everything the issues area holds; `store.areas["issues"]`."""

    labels: dict[str, Label] = field(default_factory=dict)
    milestones: dict[int, Milestone] = field(default_factory=dict)
    issues: dict[int, Issue] = field(default_factory=dict)
    notes: dict[int, list[Note]] = field(default_factory=dict)  # by issue id
    merge_requests: dict[int, MergeRequest] = field(default_factory=dict)
    todos: dict[tuple[int, int], Todo] = field(default_factory=dict)  # (user id, issue id)
    epics: dict[int, dict[str, object]] = field(default_factory=dict)
    iid_counters: dict[int, int] = field(default_factory=dict)  # per project
    pending: Callable[[], None] | None = None  # the large scale's issues, generated on first use
    building: bool = False  # `pending` is running (another thread's caller waits for it)
    _by_project_iid: dict[tuple[int, int], int] = field(default_factory=dict)

    def next_iid(self, project_id: int) -> int:
        value = self.iid_counters.get(project_id, 0) + 1
        self.iid_counters[project_id] = value
        return value

    def add(self, issue: Issue) -> Issue:
        self.issues[issue.id] = issue
        self._by_project_iid[(issue.project_id, issue.iid)] = issue.id
        return issue

    def remove(self, issue: Issue) -> None:
        self.issues.pop(issue.id, None)
        self._by_project_iid.pop((issue.project_id, issue.iid), None)
        self.notes.pop(issue.id, None)

    def by_iid(self, project_id: int, iid: int) -> Issue | None:
        issue_id = self._by_project_iid.get((project_id, iid))
        return None if issue_id is None else self.issues.get(issue_id)

    def milestones_of(self, project_id: int) -> list[Milestone]:
        return [m for m in self.milestones.values() if m.project_id == project_id]

    def milestone_by_title(self, project_id: int, title: str) -> Milestone | None:
        return next((m for m in self.milestones_of(project_id) if m.title == title), None)


_BUILDING = threading.RLock()  # reentrant: the build itself may read the area


def issues_data(store: Store) -> IssuesData:
    """The area's records (the large scale's generated issues are built on the first call, or by
    `build_in_background`; a caller arriving meanwhile waits for the build to finish)."""
    data = store.area(AREA, IssuesData)
    if data.pending is not None or data.building:
        with _BUILDING:
            if data.pending is not None:
                # `building` before `pending` goes: a reader checking both without the lock never sees
                # neither set while the build runs (it would read half-built issues)
                data.building = True
                build, data.pending = data.pending, None
                try:
                    build()
                finally:
                    data.building = False
    return data


def build_in_background(store: Store, then: Callable[[Store], None] | None = None) -> None:
    """Start building the large scale's issues in a daemon thread (once the store is fully seeded), so
    that the first `/issues` request does not pay the second it takes. `then(store)` runs right after,
    in the same thread and still before any caller may read the area (it waits, as for the build)."""
    data = store.area(AREA, IssuesData)
    if data.pending is not None:
        if then is not None:
            build = data.pending

            def build_then() -> None:
                build()
                then(store)
            data.pending = build_then
        threading.Thread(target=issues_data, args=(store,), name="sandbox-issues", daemon=True).start()


def add_issue(store: Store, project: Project, title: str, author_id: int, *, created: datetime | None = None,
              **fields: object) -> Issue:
    """A new issue in `project` (used by seeding, the create route and tests)."""
    data = issues_data(store)
    at = created or store.now()
    issue = Issue(id=store.next_id("issue"), iid=data.next_iid(project.id), project_id=project.id,
                  title=title, description=str(fields.pop("description", "")), author_id=author_id,
                  created_at=at, updated_at=at, **fields)  # type: ignore[arg-type]
    issue.relative_position = issue.id * 513
    return data.add(issue)


def add_note(store: Store, issue: Issue, author_id: int, body: str, *, system: bool = False,
             created: datetime | None = None, confidential: bool = False) -> Note:
    note = Note(store.next_id("note"), issue.id, author_id, body, created or store.now(), system,
                confidential)
    issues_data(store).notes.setdefault(issue.id, []).append(note)
    return note
