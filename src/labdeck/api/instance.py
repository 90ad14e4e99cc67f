"""Instance-wide facts: the version, the edition and version as `Capabilities`, the current user, and the job
behind a CI job token."""

from __future__ import annotations

from typing import Any

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.errors import MalformedResponse, NotFound
from labdeck.api.models.users import CurrentUser
from labdeck.api.models.version import Version
from labdeck.domain import catalogue as ep
from labdeck.domain.capabilities import Capabilities, capabilities_from_version
from labdeck.domain.digits import integer_value
from labdeck.domain.job_tokens import JobScope, project_path_from_job_url
from labdeck.domain.text import sanitize


class InstanceService:
    """`GET /version`, `GET /metadata`, `GET /user` and `GET /job`."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    async def version(self) -> Version:
        return await b.VERSION.read(self.client)

    async def capabilities(self) -> Capabilities:
        """The edition and version: `GET /metadata` (GitLab 15.2 and later), else `GET /version` when the
        instance is older (404). Other errors (401 with a job token, say) propagate."""
        try:
            body = await self.client.get_json(ep.METADATA.path())
        except NotFound:
            body = await self.client.get_json(ep.VERSION.path())
        return capabilities_from_version(body)

    async def current_user(self) -> CurrentUser:
        return await b.CURRENT_USER.read(self.client)

    async def current_job(self) -> JobScope:
        """`GET /job` (the one user-level endpoint a job token reaches): the job, its project and who ran
        it. `MalformedResponse` when the answer lacks them."""
        body: Any = await self.client.get_json(ep.CURRENT_JOB.path())
        try:
            job_id, project_id = integer_value(body["id"]), integer_value(body["pipeline"]["project_id"])
        except (KeyError, TypeError):
            job_id = project_id = None
        if job_id is None or project_id is None:
            raise MalformedResponse("GET /job: the answer names no job and project")
        web_url = found if isinstance(found := body.get("web_url"), str) else ""
        user = found if isinstance(found := body.get("user"), dict) else {}
        username = found if isinstance(found := user.get("username"), str) else "?"
        path = project_path_from_job_url(web_url, self.client.settings.base_url) or str(project_id)
        return JobScope(job_id=job_id, project_id=project_id, project_path=sanitize(path),
                        username=sanitize(username), web_url=sanitize(web_url))
