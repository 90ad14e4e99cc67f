"""The error tracking settings service: read, and enable or disable with `active` (Maintainers only).
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

    async def settings(self, project: ProjectRef) -> ErrorTrackingSettings:
        """The settings; `NotFound` when the project has none."""
        return await b.PROJECT_ERROR_TRACKING.read(self.client, project)

    async def set_active(self, project: ProjectRef, active: bool) -> ErrorTrackingSettings:
        response = await self.client.request("PATCH", ep.PROJECT_ERROR_TRACKING_UPDATE.path(project),
                                             json={"active": active})
        return b.PROJECT_ERROR_TRACKING_UPDATE.parse(self.client.decode(response))
