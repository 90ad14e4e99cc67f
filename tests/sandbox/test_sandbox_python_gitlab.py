"""A real third-party client (python-gitlab) against a sandbox served on a loopback port."""

from __future__ import annotations

from collections.abc import Iterator

import gitlab
import gitlab.exceptions
import pytest

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import RunningSandbox, start_background


@pytest.fixture(scope="module")
def served() -> Iterator[RunningSandbox]:
    running = start_background(SandboxOptions(scale="demo", async_delay=0.05))
    yield running
    running.stop()


def test_all_groups_across_several_pages(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-root", per_page=10)
    groups = gl.groups.list(get_all=True)
    assert len(groups) > 30  # more than three pages of 10
    assert len({g.id for g in groups}) == len(groups)
    assert "acme/platform" in {g.full_path for g in groups}


def test_keyset_pagination_of_projects(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-root")
    ids = [p.id for p in gl.projects.list(pagination="keyset", order_by="id", per_page=5, iterator=True)]
    offset_total = len(gl.projects.list(get_all=True, per_page=100))
    assert len(ids) == offset_total > 5
    assert ids == sorted(ids, reverse=True)


def test_project_by_path_and_sudo(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-root")
    assert gl.projects.get("acme/platform/api-gateway").path == "api-gateway"
    as_alice = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-root")
    as_alice.headers["Sudo"] = "alice"
    as_alice.auth()
    assert as_alice.user is not None and as_alice.user.username == "alice"
    with pytest.raises(gitlab.exceptions.GitlabGetError) as caught:
        as_alice.projects.get("hidden-lab/secrets")
    assert caught.value.response_code == 404
    denied = gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-alice")
    denied.headers["Sudo"] = "bob"
    with pytest.raises(gitlab.exceptions.GitlabGetError) as forbidden:
        denied.auth()
    assert forbidden.value.response_code == 403
    assert "Must be admin to use sudo" in str(forbidden.value)


def test_bad_token_is_401(served: RunningSandbox) -> None:
    gl = gitlab.Gitlab(served.base_url, private_token="glpat-wrong")
    with pytest.raises(gitlab.exceptions.GitlabAuthenticationError) as caught:
        gl.auth()
    assert caught.value.response_code == 401
    assert "401 Unauthorized" in str(caught.value)
