"""Deployment routes (GitLab's API docs, "Deployments"), as GitLab's `lib/api/deployments.rb` behaves:

- every endpoint needs a signed-in user (GitLab's `before { authenticate! }`: 401 before any parameter
  is looked at, even on a public project);
- list a project's deployments: `order_by` (`id` default, `iid`, `created_at`, `updated_at`, `ref`; ties
  broken by id), `sort` (`asc` default), `updated_after`/`updated_before` (ISO 8601, bounds
  that include the instant: `domain.deployments.updated_within`),
  `environment` (name), `status` (any of `Deployment.statuses`, `blocked` included); invalid values
  answer Grape's 400s;
- read one (`404 Deployment Not Found`); the merge requests it shipped (`state` filter, paginated);
- create (Developer or more): `environment`, `sha`, `ref`, `tag` and `status` required (`running`,
  `success`, `failed`, `canceled`; 400 `{"error": "status is missing"}` without it); the environment is
  found or created by name; 201 with `deployable: null`;
- update the status (`status` required, as on create): transitions checked with `domain.deployments` (400
  `{"message": {"status": ["cannot transition via \"run\""]}}`); a deployment made by a CI job is refused
  (403, as GitLab refuses to update those through the API).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from starlette.routing import Route

from labdeck.domain.deployments import LISTABLE_STATUSES, SETTABLE_STATUSES, transition_error, updated_within
from labdeck.domain.digits import parse_digits
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, datetime_param, endpoint, iso, json_response, paginate
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.seed.deployments import (
    Deployment,
    DeploymentsData,
    MergeRequest,
    add_deployment,
    add_environment,
    deployments_data,
)
from labdeck.sandbox.seed.deployments import seed as seed  # the area's seeding function
from labdeck.sandbox.shapes import commit_json, user_basic, user_public
from labdeck.sandbox.store import Project

DEVELOPER = 30
CI_UPDATE_REFUSED = "Deployments created using GitLab CI can not be updated using the API"
_ORDER = {
    "id": lambda d: (d.id,), "iid": lambda d: (d.iid, d.id), "created_at": lambda d: (d.created_at, d.id),
    "updated_at": lambda d: (d.updated_at, d.id), "ref": lambda d: (d.ref, d.id),
}
MR_STATES = ("opened", "closed", "locked", "merged", "all")


# --- access ---------------------------------------------------------------------------------------------

REPORTER = 20


def read_environments(ctx: Ctx) -> Project:
    """The project whose environments and deployments the caller may read: a private project's need a
    Reporter (GitLab's `read_environment` and `read_deployment`; a Guest reads them only in public and
    internal projects), else 403."""
    project = find_project(ctx)
    user = ctx.user
    if project.visibility == "private" and user is not None and not user.is_admin:
        if ctx.store.project_levels(user.id).get(project.id, 0) < REPORTER:
            raise SandboxError.forbidden()
    return project


def _deployment(ctx: Ctx, data: DeploymentsData, project: Project) -> Deployment:
    number = parse_digits(ctx.path("deployment_id"))
    if number is None:
        raise SandboxError.invalid("deployment_id")
    deployment = data.deployments.get(number)
    if deployment is None or deployment.project_id != project.id:
        raise SandboxError.not_found("Deployment")
    return deployment


# --- shapes ---------------------------------------------------------------------------------------------

def _user(ctx: Ctx, user_id: int, public: bool = False) -> dict[str, Any] | None:
    user = ctx.store.users.get(user_id)
    if user is None:
        return None
    return user_public(user, ctx.base) if public else user_basic(user, ctx.base)


def _seconds(start: datetime | None, end: datetime | None) -> float | None:
    return None if start is None or end is None else (end - start).total_seconds()


def deployable_json(ctx: Ctx, deployment: Deployment) -> dict[str, Any] | None:
    """GitLab's `Job` entity (`Ci::JobBasic` and `Ci::Job`): no artifacts (so no `artifacts_file`), no
    runner; `failure_reason` only on a failed job; `duration` runs until now while the job runs."""
    job = deployment.deployable
    if job is None:
        return None
    project = ctx.store.projects[deployment.project_id]
    web = f"{ctx.base}/{project.path_with_namespace}"
    out: dict[str, Any] = {
        "id": job.id, "status": job.status, "stage": job.stage, "name": job.name, "ref": deployment.ref,
        "tag": deployment.tag, "coverage": job.coverage, "allow_failure": False,
        "created_at": iso(job.created_at), "started_at": iso(job.started_at),
        "finished_at": iso(job.finished_at), "erased_at": None,
        "duration": _seconds(job.started_at, job.finished_at or (job.started_at and ctx.store.now())),
        "queued_duration": _seconds(job.created_at, job.started_at),
        "user": _user(ctx, job.user_id, public=True), "commit": commit_json(job.commit, web),
        "pipeline": {"id": job.pipeline_id, "project_id": project.id,
                     "sha": deployment.sha, "ref": deployment.ref, "status": job.status, "source": "push",
                     "created_at": iso(job.created_at), "updated_at": iso(deployment.updated_at),
                     "web_url": f"{web}/-/pipelines/{job.pipeline_id}"},
        "web_url": f"{web}/-/jobs/{job.id}", "project": {"ci_job_token_scope_enabled": False},
        "artifacts": [], "runner": None, "runner_manager": None, "artifacts_expire_at": None,
        "archived": False, "tag_list": [],
    }
    if job.status == "failed":
        out["failure_reason"] = "script_failure"
    return out


def deployment_json(ctx: Ctx, deployment: Deployment) -> dict[str, Any]:
    """GitLab's `Deployment` entity (list, single, an environment's `last_deployment`)."""
    data = deployments_data(ctx.store)
    env = data.environments.get(deployment.environment_id)
    return {
        "id": deployment.id, "iid": deployment.iid, "ref": deployment.ref, "sha": deployment.sha,
        "created_at": iso(deployment.created_at), "updated_at": iso(deployment.updated_at),
        "status": deployment.status, "user": _user(ctx, deployment.user_id),
        "environment": ({"id": env.id, "name": env.name, "slug": env.slug, "external_url": env.external_url,
                         "created_at": iso(env.created_at), "updated_at": iso(env.updated_at)}
                        if env is not None else None),  # EnvironmentBasic
        "deployable": deployable_json(ctx, deployment),
    }


def merge_request_json(ctx: Ctx, mr: MergeRequest) -> dict[str, Any]:
    project = ctx.store.projects[mr.project_id]
    full = f"{project.path_with_namespace}!{mr.iid}"
    return {
        "id": mr.id, "iid": mr.iid, "project_id": mr.project_id, "title": mr.title,
        "description": mr.description, "state": mr.state, "created_at": iso(mr.created_at),
        "updated_at": iso(mr.updated_at), "merged_by": _user(ctx, mr.author_id),
        "merged_at": iso(mr.merged_at), "closed_by": None, "closed_at": None,
        "target_branch": mr.target_branch, "source_branch": mr.source_branch, "user_notes_count": 0,
        "upvotes": 0, "downvotes": 0, "author": _user(ctx, mr.author_id), "assignee": None,
        "assignees": [], "reviewers": [], "source_project_id": mr.project_id,
        "target_project_id": mr.project_id, "labels": [], "draft": False, "work_in_progress": False,
        "milestone": None, "merge_when_pipeline_succeeds": False, "merge_status": "can_be_merged",
        "detailed_merge_status": "not_open", "sha": mr.sha, "merge_commit_sha": mr.merge_commit_sha,
        "squash_commit_sha": None, "discussion_locked": None, "should_remove_source_branch": True,
        "force_remove_source_branch": True, "reference": f"!{mr.iid}",
        "references": {"short": f"!{mr.iid}", "relative": f"!{mr.iid}", "full": full},
        "web_url": f"{ctx.base}/{project.path_with_namespace}/-/merge_requests/{mr.iid}",
        "time_stats": {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None,
                       "human_total_time_spent": None},
        "squash": False, "task_completion_status": {"count": 0, "completed_count": 0},
    }


# --- listing --------------------------------------------------------------------------------------------

def _list_filters(ctx: Ctx) -> tuple[str, str, datetime | None, datetime | None, str | None, str | None]:
    p = ctx.params
    problems = []
    values: dict[str, Any] = {}
    for name, call in (("order_by", lambda: p.choice("order_by", _ORDER, "id")),
                       ("sort", lambda: p.choice("sort", ("asc", "desc"), "asc")),
                       ("updated_after", lambda: datetime_param(ctx, "updated_after", space_is_plus=True)),
                       ("updated_before", lambda: datetime_param(ctx, "updated_before", space_is_plus=True)),
                       ("environment", lambda: p.str("environment")),
                       ("status", lambda: p.choice("status", LISTABLE_STATUSES))):
        try:
            values[name] = call()
        except SandboxError as exc:
            problems.append(exc.body["error"])
    if problems:
        raise SandboxError(400, {"error": ", ".join(problems)})
    return (values["order_by"], values["sort"], values["updated_after"], values["updated_before"],
            values["environment"], values["status"])


async def list_deployments(ctx: Ctx) -> Any:
    ctx.require_user()
    project = read_environments(ctx)
    data = deployments_data(ctx.store)
    order_by, sort, after, before, environment, status = _list_filters(ctx)

    def build() -> list[Deployment]:
        rows = data.deployments_of(project.id)
        if environment:
            env = data.environment_named(project.id, environment)
            rows = [d for d in rows if env is not None and d.environment_id == env.id]
        if status:
            rows = [d for d in rows if d.status == status]
        if after is not None or before is not None:  # both bounds include the instant, as GitLab's
            rows = [d for d in rows if updated_within(d.updated_at, after, before)]
        return sorted(rows, key=_ORDER[order_by], reverse=sort == "desc")

    rows = ctx.store.memo(("deployments", *ctx.listing_key()), build)
    return paginate(ctx, rows, lambda d: deployment_json(ctx, d))


async def get_deployment(ctx: Ctx) -> Any:
    ctx.require_user()
    project = find_project(ctx)
    return deployment_json(ctx, _deployment(ctx, deployments_data(ctx.store), project))


async def deployment_merge_requests(ctx: Ctx) -> Any:
    ctx.require_user()
    project = find_project(ctx)
    data = deployments_data(ctx.store)
    deployment = _deployment(ctx, data, project)
    state = ctx.params.choice("state", MR_STATES, "all")
    mrs = [data.merge_requests[i] for i in deployment.merge_request_ids if i in data.merge_requests]
    if state != "all":
        mrs = [mr for mr in mrs if mr.state == state]
    mrs.sort(key=lambda mr: mr.created_at, reverse=ctx.params.str("sort", "desc") != "asc")
    return paginate(ctx, mrs, lambda mr: merge_request_json(ctx, mr))


# --- creating and updating ------------------------------------------------------------------------------

async def create_deployment(ctx: Ctx) -> Any:
    ctx.require_user()
    project = find_project(ctx)
    p = ctx.params
    missing = [n for n in ("environment", "sha", "ref", "tag", "status")
               if p.data.get(n) is None or (n != "tag" and p.data.get(n) == "")]
    if missing:
        raise SandboxError.missing(*missing)
    tag = p.bool("tag")
    status = p.choice("status", SETTABLE_STATUSES)
    require_level(ctx, project, DEVELOPER)
    user = ctx.require_user()
    data = deployments_data(ctx.store)
    name = p.str("environment") or ""
    env = data.environment_named(project.id, name) or add_environment(ctx.store, project, name)
    deployment = add_deployment(ctx.store, project, env, ref=p.str("ref") or "", sha=p.str("sha") or "",
                                tag=bool(tag), status=status or "running", user_id=user.id)
    env.updated_at = deployment.updated_at
    ctx.store.touch()
    return json_response(deployment_json(ctx, deployment), 201)


async def update_deployment(ctx: Ctx) -> Any:
    ctx.require_user()
    ctx.params.require("status")
    status = ctx.params.choice("status", SETTABLE_STATUSES)
    project = find_project(ctx)
    data = deployments_data(ctx.store)
    deployment = _deployment(ctx, data, project)
    require_level(ctx, project, DEVELOPER)
    if deployment.deployable is not None:
        raise SandboxError.forbidden(CI_UPDATE_REFUSED)
    problem = transition_error(deployment.status, status or "")
    if problem is not None:
        raise SandboxError.validation({"status": [problem]})
    deployment.status = status or deployment.status
    deployment.updated_at = ctx.store.now()
    ctx.store.touch()
    return deployment_json(ctx, deployment)


_ONE = "/projects/{id}/deployments/{deployment_id}"

routes: list[Route] = [
    Route("/projects/{id}/deployments", endpoint(list_deployments), methods=["GET"]),
    Route("/projects/{id}/deployments", endpoint(create_deployment), methods=["POST"]),
    Route(_ONE, endpoint(get_deployment), methods=["GET"]),
    Route(_ONE, endpoint(update_deployment), methods=["PUT"]),
    Route(_ONE + "/merge_requests", endpoint(deployment_merge_requests), methods=["GET"]),
]
