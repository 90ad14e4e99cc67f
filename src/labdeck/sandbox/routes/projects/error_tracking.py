"""Error tracking settings (GitLab's API docs, "Error tracking settings"), as GitLab's
`lib/api/error_tracking/project_settings.rb` behaves: `GET` and `PATCH /projects/:id/error_tracking/settings`,
Maintainer (40) or more; a project without settings answers `404 Error Tracking Setting Not Found`;
`PATCH` needs `active` (a boolean) and answers the settings.
"""

from __future__ import annotations

from typing import Any

from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint
from labdeck.sandbox.routes.projects.projects import find_project, require_level
from labdeck.sandbox.routes.projects.repository_tags import MAINTAINER
from labdeck.sandbox.seed.project_resources import ErrorTracking, error_tracking_data, seed_error_tracking


def settings_json(record: ErrorTracking) -> dict[str, Any]:
    return {"active": record.active, "project_name": record.project_name,
            "tracker_external_url": record.tracker_external_url,
            "sentry_external_url": record.tracker_external_url,  # GitLab's own name for it
            "api_url": record.api_url, "integrated": False}


def _settings(ctx: Ctx) -> ErrorTracking:
    project = find_project(ctx)
    require_level(ctx, project, MAINTAINER)
    record = error_tracking_data(ctx.store).settings.get(project.id)
    if record is None:
        raise SandboxError.not_found("Error Tracking Setting")
    return record


async def get_settings(ctx: Ctx) -> Any:
    return settings_json(_settings(ctx))


async def patch_settings(ctx: Ctx) -> Any:
    ctx.params.require("active")
    active = ctx.params.bool("active")
    record = _settings(ctx)
    record.active = bool(active)
    return settings_json(record)


seed = seed_error_tracking  # the area's seeding function

routes: list[Route] = [
    Route("/projects/{id}/error_tracking/settings", endpoint(get_settings), methods=["GET"]),
    Route("/projects/{id}/error_tracking/settings", endpoint(patch_settings), methods=["PATCH"]),
]
