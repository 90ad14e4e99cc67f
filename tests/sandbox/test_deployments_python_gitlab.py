"""python-gitlab (a real third-party client) against the deployments area of a served tiny sandbox."""

from __future__ import annotations

from collections.abc import Iterator

import gitlab
import gitlab.exceptions
import pytest

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import RunningSandbox, start_background


@pytest.fixture(scope="module")
def served() -> Iterator[RunningSandbox]:
    running = start_background(SandboxOptions(scale="tiny"))
    yield running
    running.stop()


def test_deployments_through_python_gitlab(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-alice")
    project = gl.projects.get("acme/platform/api-gateway")
    production = project.deployments.list(environment="production", status="success", order_by="created_at",
                                          sort="desc", get_all=True)
    assert production and all(d.environment["name"] == "production" for d in production)
    shipped = next(d for d in production if d.mergerequests.list(get_all=True))
    assert all(mr.state == "merged" for mr in shipped.mergerequests.list(get_all=True))
    made = project.deployments.create({"environment": "canary", "sha": "d" * 40, "ref": "main",
                                       "tag": False, "status": "running"})
    made.status = "success"
    made.save()
    assert project.deployments.get(made.id).status == "success"
    made.status = "running"
    with pytest.raises(gitlab.exceptions.GitlabUpdateError):
        made.save()


def test_protected_environments_through_python_gitlab(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-root")
    project = gl.projects.get("acme/platform/api-gateway")
    assert {p.name for p in project.protected_environments.list(get_all=True)} >= {"production", "staging"}
    created = project.protected_environments.create({"name": "py-gitlab",
                                                     "deploy_access_levels": [{"access_level": 40}]})
    assert created.deploy_access_levels[0]["access_level_description"] == "Maintainers"
    project.protected_environments.delete("py-gitlab")
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        project.protected_environments.get("py-gitlab")
