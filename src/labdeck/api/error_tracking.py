"""The error tracking settings service: read, and enable or disable with `active` (Maintainers only).
The only module that knows these paths."""

from __future__ import annotations

from labdeck.api.client import ApiClient
from labdeck.api.models.base import parse_one
from labdeck.api.models.project_resources import ErrorTrackingSettings
from labdeck.api.projects import ProjectRef
from labdeck.domain.paths import segment


class ErrorTrackingService:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def _path(self, project: ProjectRef) -> str:
        return f"/projects/{segment(project)}/error_tracking/settings"

    async def settings(self, project: ProjectRef) -> ErrorTrackingSettings:
        """The settings; `NotFound` when the project has none."""
        return parse_one(ErrorTrackingSettings, await self.client.get_json(self._path(project)))

    async def set_active(self, project: ProjectRef, active: bool) -> ErrorTrackingSettings:
        response = await self.client.request("PATCH", self._path(project), json={"active": active})
        return parse_one(ErrorTrackingSettings, self.client.decode(response))
