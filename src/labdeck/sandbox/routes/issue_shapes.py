"""JSON shapes of the issues area, field for field as contract document 3 lists them (GitLab's
`Entities::Issue`, `IssuableTimeStats`, the milestone and the merge request as issue endpoints give them)."""

from __future__ import annotations

from typing import Any

from labdeck.domain.durations import human_time
from labdeck.sandbox.http import Ctx, iso
from labdeck.sandbox.seed.issues import Issue, IssuesData, MergeRequest, Milestone, issues_data
from labdeck.sandbox.shapes import user_basic
from labdeck.sandbox.store import Project


def time_stats(issue: Issue) -> dict[str, Any]:
    return {"time_estimate": issue.time_estimate, "total_time_spent": issue.total_time_spent,
            "human_time_estimate": human_time(issue.time_estimate),
            "human_total_time_spent": human_time(issue.total_time_spent)}


def milestone_json(ctx: Ctx, ms: Milestone) -> dict[str, Any]:
    project = ctx.store.projects[ms.project_id]
    today = ctx.store.now().date()
    return {"id": ms.id, "iid": ms.iid, "project_id": ms.project_id, "title": ms.title,
            "description": ms.description, "state": ms.state, "created_at": iso(ms.created_at),
            "updated_at": iso(ms.created_at), "due_date": ms.due_date.isoformat() if ms.due_date else None,
            "start_date": None, "expired": bool(ms.due_date and ms.due_date < today),
            "web_url": f"{ctx.base}/{project.path_with_namespace}/-/milestones/{ms.iid}"}


def _parts(ctx: Ctx) -> dict[tuple[str, Any], Any]:
    """Pieces shared by many issues (user references, label details, milestones), built once per store
    version and base URL: a page of a large listing then costs little more than its JSON encoding."""
    return ctx.store.memo(("issue_shape_parts", ctx.base), dict)  # type: ignore[no-any-return]


def _user_ref(ctx: Ctx, user_id: int | None) -> dict[str, Any] | None:
    if user_id is None:
        return None
    parts = _parts(ctx)
    key = ("user", user_id)
    if key not in parts:
        user = ctx.store.users.get(user_id)
        parts[key] = user_basic(user, ctx.base) if user is not None else None
    return parts[key]  # type: ignore[no-any-return]


def _label_detail(ctx: Ctx, data: IssuesData, name: str) -> dict[str, Any] | None:
    parts = _parts(ctx)
    key = ("label", name)
    cached = parts.get(key)
    if cached is None:
        lab = data.labels.get(name)
        if lab is None:
            return None
        cached = parts[key] = {"id": lab.id, "name": lab.name, "color": lab.color,
                               "description": lab.description,
                               "description_html": f"<p>{lab.description}</p>", "text_color": lab.text_color}
    return cached  # type: ignore[no-any-return]


def _milestone(ctx: Ctx, ms: Milestone) -> dict[str, Any]:
    parts = _parts(ctx)
    key = ("milestone", ms.id)
    if key not in parts:
        parts[key] = milestone_json(ctx, ms)
    return parts[key]  # type: ignore[no-any-return]


def _relative(ctx: Ctx, project: Project, iid: int, group_path: str | None) -> str:
    if group_path is None:
        return f"#{iid}"
    path = project.path_with_namespace
    return f"{path[len(group_path) + 1:] if path.startswith(group_path + '/') else path}#{iid}"


def issue_json(ctx: Ctx, issue: Issue, *, details: bool = False, group_path: str | None = None,
               subscribed: bool = True) -> dict[str, Any]:
    """The issue as GitLab's `Entities::Issue` shows it; listings leave `subscribed` out
    (`include_subscribed: false`)."""
    store, data, base = ctx.store, issues_data(ctx.store), ctx.base
    project = store.projects[issue.project_id]
    web = f"{base}/{project.path_with_namespace}/-/issues/{issue.iid}"
    api = f"{base}/api/v4/projects/{project.id}/issues/{issue.iid}"
    assignees = [ref for uid in issue.assignee_ids if (ref := _user_ref(ctx, uid)) is not None]
    ms = data.milestones.get(issue.milestone_id) if issue.milestone_id else None
    notes = data.notes.get(issue.id, [])
    mrs = [mr for mr in data.merge_requests.values() if issue.id in mr.related]
    if details:
        labels: list[Any] = [lab for name in issue.labels
                             if (lab := _label_detail(ctx, data, name)) is not None]
    else:
        labels = list(issue.labels)
    epic = data.epics.get(issue.epic_id) if issue.epic_id else None
    user = ctx.user
    body = {
        "id": issue.id, "iid": issue.iid, "project_id": issue.project_id, "title": issue.title,
        "description": issue.description, "state": issue.state, "created_at": iso(issue.created_at),
        "updated_at": iso(issue.updated_at), "closed_at": iso(issue.closed_at),
        "closed_by": _user_ref(ctx, issue.closed_by_id), "labels": labels,
        "milestone": _milestone(ctx, ms) if ms else None, "assignees": assignees,
        "author": _user_ref(ctx, issue.author_id), "type": issue.issue_type.upper(),
        "assignee": assignees[0] if assignees else None, "user_notes_count": sum(not n.system for n in notes),
        "merge_requests_count": len(mrs),
        "upvotes": sum(1 for _, e in issue.reactions if e == "thumbsup"),
        "downvotes": sum(1 for _, e in issue.reactions if e == "thumbsdown"),
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
    if subscribed:
        body["subscribed"] = user is not None and (user.id == issue.author_id
                                                   or user.id in issue.assignee_ids)
    return body


def merge_request_json(ctx: Ctx, mr: MergeRequest) -> dict[str, Any]:
    """A merge request as the issue endpoints list it (the fields of contract document 3)."""
    project = ctx.store.projects[mr.project_id]
    author = _user_ref(ctx, mr.author_id)
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
    }
