"""`InstanceService.capabilities()` and `current_job()` against sandboxes of each edition and version."""

from __future__ import annotations

import httpx
import pytest
from pydantic import SecretStr
from sandbox_clients import SANDBOX_URL, sandbox_settings

from labdeck.api.client import ApiClient
from labdeck.api.errors import NotFound, Unauthorized
from labdeck.api.instance import InstanceService
from labdeck.api.settings import ConnectionSettings
from labdeck.domain.features import ITERATIONS, PROTECTED_ENVIRONMENTS, RELATIONS_EXPORT
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

JOB_TOKEN = "glcbt-sandbox-job"


def client_for(settings: ConnectionSettings | None = None, **options: object) -> ApiClient:
    app = create_app(SandboxOptions(scale="tiny", **options), clock=ManualClock())  # type: ignore[arg-type]
    return ApiClient(settings or sandbox_settings(), transport=httpx.ASGITransport(app))


def job_settings() -> ConnectionSettings:
    return ConnectionSettings(SANDBOX_URL, token=SecretStr(JOB_TOKEN), auth="job")


@pytest.mark.parametrize(("options", "edition", "version", "paths"), [
    ({"edition": "ce", "gitlab_version": "16.11"}, "ce", (16, 11, 0), ["/metadata"]),
    ({"edition": "ee", "gitlab_version": "17.6.1"}, "ee", (17, 6, 1), ["/metadata"]),
    ({"edition": "ee", "gitlab_version": "15.3"}, "ee", (15, 3, 0), ["/metadata"]),  # no `enterprise` yet
    ({"edition": "ce", "gitlab_version": "15.0"}, "ce", (15, 0, 0), ["/metadata", "/version"]),
    ({"edition": "ee", "gitlab_version": "13.4"}, "ee", (13, 4, 0), ["/metadata", "/version"]),
])
async def test_capabilities_per_edition_and_version(options: dict[str, object], edition: str,
                                                    version: tuple[int, int, int], paths: list[str]) -> None:
    async with client_for(**options) as client:
        found = await InstanceService(client).capabilities()
        assert (found.edition, found.version) == (edition, version)
        assert [entry.path for entry in client.request_log.entries] == paths


async def test_ce_capabilities_explain_missing_premium_features() -> None:
    async with client_for(edition="ce", gitlab_version="13.4") as client:
        found = await InstanceService(client).capabilities()
    assert found.supports(ITERATIONS) == "needs GitLab 13.5"
    assert found.supports(PROTECTED_ENVIRONMENTS) == "needs GitLab Premium"
    assert found.supports(RELATIONS_EXPORT) == "needs GitLab 13.12"
    assert found.label() == "GitLab 13.4.0 CE"


async def test_a_job_token_reads_its_job_not_the_user() -> None:
    async with client_for(job_settings()) as client:
        service = InstanceService(client)
        with pytest.raises(Unauthorized):
            await service.current_user()
        with pytest.raises(Unauthorized):
            await service.capabilities()
        job = await service.current_job()
    assert job.project_path == "acme/platform/api-gateway" and job.username == "alice"
    assert job.job_id > 0 and "api-gateway" in job.explanation()


async def test_current_job_with_a_personal_token_is_not_found() -> None:
    async with client_for() as client:
        with pytest.raises(NotFound):
            await InstanceService(client).current_job()
