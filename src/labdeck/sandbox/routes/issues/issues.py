"""The issues area of the sandbox: the listings of GitLab's API docs ("Issues", their parameter rules
`listing.select_issues`) and project issues as real GitLab serves them (design appendix): read, create,
update (labels, `add_labels`/`remove_labels`, assignees, milestone, due date, confidential,
`state_event=close|reopen`), delete; notes (a `/promote` line promotes the issue to an epic); to-do items
(201, then 304); time tracking with GitLab's working-time durations (`time_tracking.py`); related and
closing merge requests. Who may reach and change an issue: `access.py`.

Reading needs read access to the project (404 otherwise, and for a confidential issue the caller may not
see); updating needs the author or Planner (15) and up; deleting needs Owner (50) or an administrator.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from labdeck.domain.features import ISSUE_WEIGHT, PROMOTE_TO_EPIC
from labdeck.sandbox.editions import has_feature
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, json_response, paginate
from labdeck.sandbox.params import integer
from labdeck.sandbox.routes.groups.groups import find_group
from labdeck.sandbox.routes.issues.access import issue_of, level_in, require_editor
from labdeck.sandbox.routes.issues.listing import select_issues
from labdeck.sandbox.routes.issues.shapes import (
    issue_json,
    issue_listing_json,
    merge_request_json,
    milestone_json,
)
from labdeck.sandbox.routes.issues.time_tracking import TIME_ROUTES
from labdeck.sandbox.routes.projects.projects import find_project
from labdeck.sandbox.seed.issues import Issue, Label, Note, Todo, add_issue, add_note, issues_data
from labdeck.sandbox.seed.issues_seed import seed as seed  # the area's seeding function
from labdeck.sandbox.shapes import user_basic
from labdeck.sandbox.store import Project

OWNER = 50
REPORTER = 20
_PROMOTE = re.compile(r"^/promote\s*$", re.MULTILINE)
_UPDATE_FIELDS = ("title", "description", "labels", "add_labels", "remove_labels", "assignee_id",
                  "assignee_ids", "milestone_id", "due_date", "confidential", "discussion_locked",
                  "state_event", "issue_type", "weight")


# --- listings -------------------------------------------------------------------------------------------

def _listing(ctx: Ctx, listing: str, project_ids: set[int] | None, group_path: str | None = None) -> Any:
    rows = ctx.store.memo(ctx.listing_key(), lambda: select_issues(ctx, listing, project_ids))
    details = bool(ctx.params.bool("with_labels_details"))
    return paginate(ctx, rows, lambda i: issue_listing_json(ctx, i, details=details, group_path=group_path))


async def list_issues(ctx: Ctx) -> Any:
    """The global listing: no project or group context, so `references.relative` is the full path
    (GitLab's `to_reference` without a `from`)."""
    return _listing(ctx, "global", None, "")


async def list_group_issues(ctx: Ctx) -> Any:
    group = find_group(ctx)
    store = ctx.store
    by_namespace = store.projects_by_namespace()
    ids = {pid for gid in (group.id, *store.descendants(group.id))
           for pid in by_namespace.get(("group", gid), [])}
    return _listing(ctx, "group", ids, group.full_path)


async def list_project_issues(ctx: Ctx) -> Any:
    project = find_project(ctx)
    return _listing(ctx, "project", {project.id})


# --- single issues --------------------------------------------------------------------------------------

async def get_issue(ctx: Ctx) -> Any:
    _, issue = issue_of(ctx)
    return issue_json(ctx, issue, details=bool(ctx.params.bool("with_labels_details")))


def _ensure_labels(ctx: Ctx, names: list[str]) -> list[str]:
    labels = issues_data(ctx.store).labels
    for name in names:
        if name not in labels:
            labels[name] = Label(ctx.store.next_id("label"), name, "#6699cc", "", None)
    return list(dict.fromkeys(names))


def _names(value: Any) -> list[str]:
    items = value if isinstance(value, list) else str(value).split(",")
    return [str(v).strip() for v in items if str(v).strip()]


def _assignees(ctx: Ctx) -> list[int] | None:
    p = ctx.params
    if "assignee_ids" in p:
        values = [v for v in p.list("assignee_ids") if str(v).strip() not in ("", "0")]
        found = [integer(v) for v in values]
        if None in found:
            raise SandboxError.invalid("assignee_ids")
        ids = [v for v in found if v is not None]
    elif "assignee_id" in p:
        ids = [p.int("assignee_id") or 0]
    else:
        return None
    return [i for i in dict.fromkeys(ids) if i in ctx.store.users]


def _apply_fields(ctx: Ctx, project: Project, issue: Issue) -> None:
    """Apply the writable fields present in the request to `issue`."""
    p, data = ctx.params, issues_data(ctx.store)
    if "title" in p:
        if not (p.str("title") or "").strip():
            raise SandboxError.validation({"title": ["can't be blank"]})
        issue.title = p.str("title") or ""
    if "description" in p:
        issue.description = p.str("description") or ""
    if "labels" in p:
        issue.labels = _ensure_labels(ctx, _names(p.get("labels")))
    if "add_labels" in p:
        issue.labels = _ensure_labels(ctx, issue.labels + _names(p.get("add_labels")))
    if "remove_labels" in p:
        gone = set(_names(p.get("remove_labels")))
        issue.labels = [name for name in issue.labels if name not in gone]
    assignees = _assignees(ctx)
    if assignees is not None:
        issue.assignee_ids = assignees
    if "milestone_id" in p.data:
        ms_id = p.int("milestone_id")
        if ms_id:
            milestone = data.milestones.get(ms_id)
            if milestone is None or milestone.project_id != project.id:
                raise SandboxError.not_found("Milestone")
        issue.milestone_id = ms_id or None
    if "due_date" in p.data:
        text = p.str("due_date") or ""
        try:
            issue.due_date = date.fromisoformat(text) if text else None
        except ValueError:
            raise SandboxError.invalid("due_date") from None
    for flag in ("confidential", "discussion_locked"):
        value = p.bool(flag)
        if value is not None:
            setattr(issue, flag, value)
    issue_type = p.choice("issue_type", ("issue", "incident", "test_case"))
    if issue_type:
        issue.issue_type = issue_type
    if "weight" in p.data and has_feature(ctx.options, ISSUE_WEIGHT):  # CE ignores it
        issue.weight = p.int("weight")


def _set_state(ctx: Ctx, issue: Issue, event: str) -> None:
    user = ctx.require_user()
    if event == "close" and issue.state != "closed":
        issue.state, issue.closed_at, issue.closed_by_id = "closed", ctx.store.now(), user.id
        add_note(ctx.store, issue, user.id, "closed", system=True)
    elif event == "reopen" and issue.state == "closed":
        issue.state, issue.closed_at, issue.closed_by_id = "opened", None, None
        add_note(ctx.store, issue, user.id, "reopened", system=True)


async def create_issue(ctx: Ctx) -> Any:
    project = find_project(ctx)
    user = ctx.require_user()
    ctx.params.require("title")
    issue = add_issue(ctx.store, project, "", user.id)
    try:
        _apply_fields(ctx, project, issue)
    except SandboxError:
        issues_data(ctx.store).remove(issue)
        raise
    ctx.store.touch()
    return json_response(issue_json(ctx, issue), 201)


async def update_issue(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    require_editor(ctx, project, issue)
    if not any(name in ctx.params.data for name in _UPDATE_FIELDS):
        raise SandboxError(400, {"error": f"{', '.join(_UPDATE_FIELDS)} are missing, "
                                          "at least one parameter must be provided"})
    event = ctx.params.choice("state_event", ("close", "reopen"))
    _apply_fields(ctx, project, issue)
    if event:
        _set_state(ctx, issue, event)
    issue.updated_at = ctx.store.now()
    ctx.store.touch()
    return issue_json(ctx, issue)


async def delete_issue(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    if level_in(ctx, project) < OWNER:
        raise SandboxError.forbidden()
    data = issues_data(ctx.store)
    data.remove(issue)
    for key in [k for k in data.todos if k[1] == issue.id]:
        del data.todos[key]
    ctx.store.touch()
    return Response(status_code=204)


# --- notes ----------------------------------------------------------------------------------------------

def note_json(ctx: Ctx, issue: Issue, note: Note, changes: dict[str, Any] | None = None) -> dict[str, Any]:
    """GitLab's `Note` entity for a plain (not diff) note on an issue; nothing here is imported."""
    author = ctx.store.users.get(note.author_id)
    body = {"id": note.id, "type": None, "body": note.body, "attachment": None,
            "author": user_basic(author, ctx.base) if author else None, "created_at": iso(note.created_at),
            "updated_at": iso(note.created_at), "system": note.system, "noteable_id": issue.id,
            "noteable_type": "Issue", "project_id": issue.project_id, "resolvable": False,
            "confidential": note.confidential, "internal": note.confidential, "imported": False,
            "imported_from": "none", "noteable_iid": issue.iid, "commands_changes": changes or {}}
    return body


async def list_notes(ctx: Ctx) -> Any:
    _, issue = issue_of(ctx)
    order_by = ctx.params.choice("order_by", ("created_at", "updated_at"), "created_at")
    descending = ctx.params.choice("sort", ("asc", "desc"), "desc") == "desc"
    notes = sorted(issues_data(ctx.store).notes.get(issue.id, []),
                   key=lambda n: (n.created_at, n.id), reverse=descending)
    del order_by  # notes are never edited in the sandbox: updated_at is created_at
    return paginate(ctx, notes, lambda n: note_json(ctx, issue, n))


def _promote(ctx: Ctx, project: Project, issue: Issue) -> bool:
    """Promote to an epic of the project's group (Reporter and up); False when it cannot be done."""
    user = ctx.require_user()
    if project.namespace_kind != "group" or issue.epic_id is not None or level_in(ctx, project) < REPORTER:
        return False
    data = issues_data(ctx.store)
    group = ctx.store.groups[project.namespace_id]
    epic_id = ctx.store.next_id("epic")
    iid = sum(1 for e in data.epics.values() if e["group_id"] == group.id) + 1
    data.epics[epic_id] = {"id": epic_id, "iid": iid, "title": issue.title, "group_id": group.id,
                           "url": f"/groups/{group.full_path}/-/epics/{iid}"}
    issue.epic_id = epic_id
    add_note(ctx.store, issue, user.id, f"promoted to epic &{iid}", system=True)
    _set_state(ctx, issue, "close")
    return True


async def create_note(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    user = ctx.require_user()
    ctx.params.require("body")
    text = ctx.params.str("body") or ""
    changes: dict[str, Any] = {}
    if _PROMOTE.search(text) and has_feature(ctx.options, PROMOTE_TO_EPIC):  # CE: plain text
        changes["promote_to_epic"] = _promote(ctx, project, issue)
        text = _PROMOTE.sub("", text).strip()
    note = add_note(ctx.store, issue, user.id, text, confidential=bool(ctx.params.bool("internal")))
    issue.updated_at = ctx.store.now()
    ctx.store.touch()
    return json_response(note_json(ctx, issue, note, changes), 201)


# --- to-do, merge requests (time tracking: `time_tracking.py`) ------------------------------------------

async def create_todo(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    user = ctx.require_user()
    data = issues_data(ctx.store)
    if (user.id, issue.id) in data.todos:
        return Response(status_code=304)
    todo = data.todos[(user.id, issue.id)] = Todo(ctx.store.next_id("todo"), user.id, issue.id, user.id,
                                                  ctx.store.now())
    ctx.store.touch()
    body = {"id": todo.id, "project": {"id": project.id, "name": project.name,
                                       "name_with_namespace": project.name_with_namespace,
                                       "path": project.path,
                                       "path_with_namespace": project.path_with_namespace},
            "author": user_basic(user, ctx.base), "action_name": "marked", "target_type": "Issue",
            "target": issue_json(ctx, issue), "target_url": issue_json(ctx, issue)["web_url"],
            "body": issue.title, "state": "pending", "created_at": iso(todo.created_at)}
    return json_response(body, 201)


async def related_merge_requests(ctx: Ctx) -> Any:
    _, issue = issue_of(ctx)
    mrs = [mr for mr in issues_data(ctx.store).merge_requests.values() if issue.id in mr.related]
    return paginate(ctx, mrs, lambda mr: merge_request_json(ctx, mr, full=True))


async def closed_by(ctx: Ctx) -> Any:
    _, issue = issue_of(ctx)
    mrs = [mr for mr in issues_data(ctx.store).merge_requests.values() if issue.id in mr.closes]
    return paginate(ctx, mrs, lambda mr: merge_request_json(ctx, mr))


async def list_milestones(ctx: Ctx) -> Any:
    """`GET /projects/:id/milestones` (`title`, `state`, `search`, `iids[]`), for picking a milestone."""
    project = find_project(ctx)
    p = ctx.params
    state = p.choice("state", ("active", "closed"))
    title, search, iids = p.str("title"), (p.str("search") or "").lower(), set(p.int_list("iids"))
    rows = [m for m in issues_data(ctx.store).milestones_of(project.id)
            if (state is None or m.state == state) and (title is None or m.title == title)
            and (not search or search in m.title.lower()) and (not iids or m.iid in iids)]
    rows.sort(key=lambda m: m.id, reverse=True)
    return paginate(ctx, rows, lambda m: milestone_json(ctx, m))


_ISSUE = "/projects/{id}/issues/{issue_iid}"
routes: list[Route] = [
    Route("/issues", endpoint(list_issues), methods=["GET"]),
    Route("/groups/{id}/issues", endpoint(list_group_issues), methods=["GET"]),
    Route("/projects/{id}/issues", endpoint(list_project_issues), methods=["GET"]),
    Route("/projects/{id}/issues", endpoint(create_issue), methods=["POST"]),
    Route("/projects/{id}/milestones", endpoint(list_milestones), methods=["GET"]),
    Route(_ISSUE, endpoint(get_issue), methods=["GET"]),
    Route(_ISSUE, endpoint(update_issue), methods=["PUT"]),
    Route(_ISSUE, endpoint(delete_issue), methods=["DELETE"]),
    Route(f"{_ISSUE}/notes", endpoint(list_notes), methods=["GET"]),
    Route(f"{_ISSUE}/notes", endpoint(create_note), methods=["POST"]),
    Route(f"{_ISSUE}/todo", endpoint(create_todo), methods=["POST"]),
    Route(f"{_ISSUE}/related_merge_requests", endpoint(related_merge_requests), methods=["GET"]),
    Route(f"{_ISSUE}/closed_by", endpoint(closed_by), methods=["GET"]),
    *TIME_ROUTES,
]
