"""Time tracking of an issue in the sandbox, as GitLab serves it: the estimate set (200) or reset, spent time
added (201; a negative duration subtracts, never below zero) or reset, the stats read; durations in
GitLab's working time (`domain.durations`). Changing needs what an issue
update needs (`access.require_editor`)."""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.domain.durations import DurationError, parse_duration
from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, json_response
from labdeck.sandbox.routes.issues.access import issue_of, require_editor
from labdeck.sandbox.routes.issues.shapes import time_stats

ESTIMATE_REFUSED = "Time estimate must have a valid format and be greater than or equal to zero."


def _duration(ctx: Ctx) -> int:
    ctx.params.require("duration")
    try:
        return parse_duration(ctx.params.str("duration") or "")
    except DurationError:
        raise SandboxError.validation({"time_estimate": ["must have a valid format"]}) from None


async def set_estimate(ctx: Ctx) -> Any:
    """GitLab's time tracking endpoints: 200 (`status :ok`); an unreadable or negative duration answers
    `bad_request!(reason: ...)`, the issue unchanged."""
    project, issue = issue_of(ctx)
    require_editor(ctx, project, issue)
    ctx.params.require("duration")
    try:
        seconds = parse_duration(ctx.params.str("duration") or "")
    except DurationError:
        seconds = -1
    if seconds < 0:
        raise SandboxError.message(400, f"400 Bad request - {ESTIMATE_REFUSED}")
    issue.time_estimate = seconds
    ctx.store.touch()
    return time_stats(issue)


async def reset_estimate(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    require_editor(ctx, project, issue)
    issue.time_estimate = 0
    ctx.store.touch()
    return time_stats(issue)


async def add_spent(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    require_editor(ctx, project, issue)
    seconds = _duration(ctx)
    if issue.total_time_spent + seconds < 0:
        raise SandboxError.validation({"base": ["Time to subtract exceeds the total time spent"]})
    issue.total_time_spent += seconds
    ctx.store.touch()
    return json_response(time_stats(issue), 201)


async def reset_spent(ctx: Ctx) -> Any:
    project, issue = issue_of(ctx)
    require_editor(ctx, project, issue)
    issue.total_time_spent = 0
    ctx.store.touch()
    return time_stats(issue)  # 200: only add_spent_time answers 201


async def get_time_stats(ctx: Ctx) -> Any:
    return time_stats(issue_of(ctx)[1])


_ISSUE = "/projects/{id}/issues/{issue_iid}"
TIME_ROUTES: list[Route] = [
    Route(f"{_ISSUE}/time_estimate", endpoint(set_estimate), methods=["POST"]),
    Route(f"{_ISSUE}/reset_time_estimate", endpoint(reset_estimate), methods=["POST"]),
    Route(f"{_ISSUE}/add_spent_time", endpoint(add_spent), methods=["POST"]),
    Route(f"{_ISSUE}/reset_spent_time", endpoint(reset_spent), methods=["POST"]),
    Route(f"{_ISSUE}/time_stats", endpoint(get_time_stats), methods=["GET"]),
]
