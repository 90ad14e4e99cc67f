"""The error tracking settings service: enable or disable with `active` (Maintainers only; the settings are
read through their binding, `bindings.PROJECT_ERROR_TRACKING`: `NotFound` when the project has none).
Paths come from the endpoint catalogue (`labdeck.domain.catalogue`)."""

from __future__ import annotations

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.project_resources import ErrorTrackingSettings
from labdeck.api.projects import ProjectRef
from labdeck.domain import catalogue as ep


class ErrorTrackingService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def set_active(self, project: ProjectRef, active: bool) -> ErrorTrackingSettings:
        response = await self.client.request("PATCH", ep.PROJECT_ERROR_TRACKING_UPDATE.path(project),
                                             json={"active": active})
        return b.PROJECT_ERROR_TRACKING_UPDATE.parse(self.client.decode(response))
