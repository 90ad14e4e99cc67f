"""JSON shapes of the issues area, field for field as GitLab's API docs lists them (GitLab's
`Entities::Issue`, `IssuableTimeStats`, the milestone and the merge request as issue endpoints give them)."""

from __future__ import annotations

from datetime import datetime
from functools import lru_cache
from typing import Any

from pydantic_core import to_json

from labdeck.domain.durations import human_time
from labdeck.domain.features import ISSUE_WEIGHT
from labdeck.sandbox.editions import EE_ISSUE_FIELDS, has_feature
from labdeck.sandbox.http import Ctx, iso
from labdeck.sandbox.seed.issues import Issue, IssuesData, MergeRequest, Milestone, issues_data
from labdeck.sandbox.shapes import user_basic
from labdeck.sandbox.store import Project


@lru_cache(maxsize=4096)
def _human_time(seconds: int) -> str | None:
    return human_time(seconds)


def time_stats(issue: Issue) -> dict[str, Any]:
    return {"time_estimate": issue.time_estimate, "total_time_spent": issue.total_time_spent,
            "human_time_estimate": _human_time(issue.time_estimate),
            "human_total_time_spent": _human_time(issue.total_time_spent)}


def _iso(value: datetime | None) -> str | None:
    """`http.iso` (`2026-01-05T10:20:30.000Z`, the value's own fields), several times faster."""
    if value is None:
        return None
    return value.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


def milestone_json(ctx: Ctx, ms: Milestone) -> dict[str, Any]:
    project = ctx.store.projects[ms.project_id]
    today = ctx.store.now().date()
    return {"id": ms.id, "iid": ms.iid, "project_id": ms.project_id, "title": ms.title,
            "description": ms.description, "state": ms.state, "created_at": iso(ms.created_at),
            "updated_at": iso(ms.created_at), "due_date": ms.due_date.isoformat() if ms.due_date else None,
            "start_date": None, "expired": bool(ms.due_date and ms.due_date < today),
            "web_url": f"{ctx.base}/{project.path_with_namespace}/-/milestones/{ms.iid}"}


def _parts(ctx: Ctx, base: str) -> dict[tuple[str, Any], Any]:
    """Pieces shared by many issues (user references, label details, milestones), built once per store
    version and base URL: a page of a large listing then costs little more than its JSON encoding."""
    return ctx.store.memo(("issue_shape_parts", base), dict)


def _user_ref(ctx: Ctx, parts: dict[tuple[str, Any], Any], base: str, user_id: int | None) -> Any:
    if user_id is None:
        return None
    key = ("user", user_id)
    if key not in parts:
        user = ctx.store.users.get(user_id)
        parts[key] = user_basic(user, base) if user is not None else None
    return parts[key]


def _label_detail(parts: dict[tuple[str, Any], Any], data: IssuesData, name: str) -> dict[str, Any] | None:
    key = ("label", name)
    cached = parts.get(key)
    if cached is None:
        lab = data.labels.get(name)
        if lab is None:
            return None
        cached = parts[key] = {"id": lab.id, "name": lab.name, "color": lab.color,  # LabelBasic
                               "description": lab.description,
                               "description_html": f"<p>{lab.description}</p>", "text_color": lab.text_color,
                               "remove_on_close": False}
    return cached


def _milestone(ctx: Ctx, parts: dict[tuple[str, Any], Any], ms: Milestone) -> dict[str, Any]:
    key = ("milestone", ms.id)
    if key not in parts:
        parts[key] = milestone_json(ctx, ms)
    return parts[key]


def _relative(ctx: Ctx, project: Project, iid: int, group_path: str | None) -> str:
    """`#1` in a project's context (None), `sub/project#1` in a group's, the full path in none ("")."""
    if group_path is None:
        return f"#{iid}"
    path = project.path_with_namespace
    return f"{path[len(group_path) + 1:] if path.startswith(group_path + '/') else path}#{iid}"


def issue_json(ctx: Ctx, issue: Issue, *, details: bool = False, group_path: str | None = None,
               subscribed: bool = True) -> dict[str, Any]:
    """The issue as GitLab's `Entities::Issue` shows it; listings leave `subscribed` out
    (`include_subscribed: false`)."""
    store, base = ctx.store, ctx.base
    data, parts = issues_data(store), _parts(ctx, base)
    project = store.projects[issue.project_id]
    web = f"{base}/{project.path_with_namespace}/-/issues/{issue.iid}"
    api = f"{base}/api/v4/projects/{project.id}/issues/{issue.iid}"
    assignees = [ref for uid in issue.assignee_ids if (ref := _user_ref(ctx, parts, base, uid)) is not None]
    ms = data.milestones.get(issue.milestone_id) if issue.milestone_id else None
    notes = data.notes.get(issue.id)
    mrs = sum(1 for mr in data.merge_requests.values() if issue.id in mr.related)
    if details:
        labels: list[Any] = [lab for name in issue.labels
                             if (lab := _label_detail(parts, data, name)) is not None]
    else:
        labels = list(issue.labels)
    up = down = 0
    for _, emoji in issue.reactions:
        up += emoji == "thumbsup"
        down += emoji == "thumbsdown"
    epic = data.epics.get(issue.epic_id) if issue.epic_id else None
    user = ctx.user
    body = {
        "id": issue.id, "iid": issue.iid, "project_id": issue.project_id, "title": issue.title,
        "description": issue.description, "state": issue.state, "created_at": _iso(issue.created_at),
        "updated_at": _iso(issue.updated_at), "closed_at": _iso(issue.closed_at),
        "closed_by": _user_ref(ctx, parts, base, issue.closed_by_id), "labels": labels,
        "milestone": _milestone(ctx, parts, ms) if ms else None, "assignees": assignees,
        "author": _user_ref(ctx, parts, base, issue.author_id), "type": issue.issue_type.upper(),
        "assignee": assignees[0] if assignees else None,
        "user_notes_count": sum(not n.system for n in notes) if notes else 0,
        "merge_requests_count": mrs, "upvotes": up, "downvotes": down,
        "due_date": issue.due_date.isoformat() if issue.due_date else None,
        "confidential": issue.confidential, "discussion_locked": issue.discussion_locked,
        "issue_type": issue.issue_type, "web_url": web, "time_stats": time_stats(issue),
        "task_completion_status": {"count": 0, "completed_count": 0}, "has_tasks": False,
        "task_status": "0 of 0 checklist items completed", "weight": issue.weight,
        "blocking_issues_count": 0, "_links": {"self": api, "notes": f"{api}/notes",
                                               "award_emoji": f"{api}/award_emoji",
                                               "project": f"{base}/api/v4/projects/{project.id}",
                                               "closed_as_duplicate_of": None},
        "references": {"short": f"#{issue.iid}", "relative": _relative(ctx, project, issue.iid, group_path),
                       "full": f"{project.path_with_namespace}#{issue.iid}"},
        "reference": f"#{issue.iid}", "severity": "UNKNOWN", "moved_to_id": None,
        "service_desk_reply_to": None, "health_status": None, "iteration": None,
        "epic_iid": epic["iid"] if epic else None, "epic": epic,
    }
    if not has_feature(ctx.options, ISSUE_WEIGHT):  # Community Edition's entity has no EE fields
        for name in EE_ISSUE_FIELDS:
            del body[name]
    if subscribed:
        body["subscribed"] = user is not None and (user.id == issue.author_id
                                                   or user.id in issue.assignee_ids)
    return body


def issue_listing_json(ctx: Ctx, issue: Issue, *, details: bool = False,
                       group_path: str | None = None) -> bytes:
    """`issue_json` of a listing row (no `subscribed`), already encoded for `paginate`: the same bytes as
    `http.encode` gives (compact UTF-8 JSON), three times faster (pydantic-core's encoder)."""
    return to_json(issue_json(ctx, issue, details=details, group_path=group_path, subscribed=False))


def merge_request_json(ctx: Ctx, mr: MergeRequest, *, full: bool = False) -> dict[str, Any]:
    """A merge request as the issue endpoints list it (the fields of GitLab's API docs). `full`: GitLab's
    `Entities::MergeRequest` (related merge requests), which adds the metrics times: null here, as the
    sandbox's issue merge requests have no pipeline and no deployment."""
    project = ctx.store.projects[mr.project_id]
    author = _user_ref(ctx, _parts(ctx, ctx.base), ctx.base, mr.author_id)
    web = f"{ctx.base}/{project.path_with_namespace}/-/merge_requests/{mr.iid}"
    sha = f"{mr.id * 7919:040x}"[-40:]
    return {
        "id": mr.id, "iid": mr.iid, "project_id": mr.project_id, "title": mr.title, "description": "",
        "state": mr.state, "created_at": iso(mr.created_at), "updated_at": iso(mr.created_at),
        "merged_at": iso(mr.created_at) if mr.state == "merged" else None, "closed_by": None,
        "closed_at": None, "target_branch": project.default_branch, "source_branch": mr.source_branch,
        "user_notes_count": 0, "upvotes": 0, "downvotes": 0, "author": author, "assignee": None,
        "assignees": [], "source_project_id": mr.project_id, "target_project_id": mr.project_id,
        "labels": [], "draft": False, "work_in_progress": False, "milestone": None,
        "merge_when_pipeline_succeeds": False, "merge_status": "can_be_merged", "sha": sha,
        "merge_commit_sha": sha if mr.state == "merged" else None, "squash_commit_sha": None,
        "discussion_locked": None, "should_remove_source_branch": None, "force_remove_source_branch": True,
        "reference": f"!{mr.iid}", "web_url": web,
        "references": {"short": f"!{mr.iid}", "relative": f"!{mr.iid}",
                       "full": f"{project.path_with_namespace}!{mr.iid}"},
        "time_stats": {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None,
                       "human_total_time_spent": None},
        "squash": False, "task_completion_status": {"count": 0, "completed_count": 0},
        "changes_count": "1", "pipeline": None, "head_pipeline": None,
        "diff_refs": {"base_sha": sha, "head_sha": sha, "start_sha": sha}, "merge_error": None,
        "user": {"can_merge": False},
    } | ({"latest_build_started_at": None, "latest_build_finished_at": None,
          "first_deployed_to_production_at": None} if full else {})
