"""python-gitlab (a real third-party client) against a served sandbox: wikis with directory slugs,
repository tags (a refused creation included), Pages domains and forks, as its users would call them."""

from __future__ import annotations

import time
from collections.abc import Iterator

import gitlab
import gitlab.exceptions
import pytest

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import RunningSandbox, start_background


@pytest.fixture(scope="module")
def served() -> Iterator[RunningSandbox]:
    running = start_background(SandboxOptions(scale="tiny", async_delay=0.05))
    yield running
    running.stop()


@pytest.fixture
def gl(served: RunningSandbox) -> gitlab.Gitlab:
    return gitlab.Gitlab(served.base_url, private_token="glpat-sandbox-root")


def test_wikis(gl: gitlab.Gitlab) -> None:
    project = gl.projects.get("acme/platform/api-gateway")
    assert "docs/setup" in [page.slug for page in project.wikis.list(get_all=True)]
    page = project.wikis.get("docs/setup")
    assert page.format == "asciidoc" and page.content.startswith("= Setup")
    created = project.wikis.create({"title": "python-gitlab/page", "content": "hello"})
    assert created.slug == "python-gitlab/page"
    created.content = "changed"
    created.save()
    assert project.wikis.get("python-gitlab/page").content == "changed"
    project.wikis.delete("python-gitlab/page")
    with pytest.raises(gitlab.exceptions.GitlabGetError):
        project.wikis.get("python-gitlab/page")


def test_tags(gl: gitlab.Gitlab) -> None:
    project = gl.projects.get("acme/platform/api-gateway")
    names = [tag.name for tag in project.tags.list(order_by="name", sort="asc", get_all=True)]
    assert names[:3] == ["v0.1.0", "v0.2.0", "v1.0.0-rc1"]
    tag = project.tags.create({"tag_name": "pg-1", "ref": "main", "message": "from python-gitlab"})
    assert tag.message == "from python-gitlab" and tag.commit["id"]
    with pytest.raises(gitlab.exceptions.GitlabCreateError) as refused:
        project.tags.create({"tag_name": "pg-1", "ref": "main"})
    assert refused.value.response_code == 405 and "already exists" in str(refused.value)
    project.tags.delete("pg-1")
    assert "pg-1" not in [t.name for t in project.tags.list(search="^pg", get_all=True)]


def test_pages_domains(gl: gitlab.Gitlab) -> None:
    every = {d.domain for d in gl.pagesdomains.list(get_all=True)}
    assert "old.acme.test" in every
    project = gl.projects.get("acme/platform/web-portal")
    domain = project.pagesdomains.create({"domain": "pg.acme.test"})
    assert domain.url == "http://pg.acme.test"
    assert project.pagesdomains.get("portal.acme.test").certificate["subject"].endswith("portal.acme.test")
    project.pagesdomains.delete("pg.acme.test")


def test_fork_and_follow_import_status(gl: gitlab.Gitlab) -> None:
    project = gl.projects.get("acme/handbook")
    fork = project.forks.create({"namespace_path": "opensource", "path": "handbook-pg",
                                 "name": "Handbook pg"})
    assert fork.import_status == "scheduled"
    deadline = time.monotonic() + 5
    status = fork.import_status
    while status != "finished" and time.monotonic() < deadline:
        time.sleep(0.05)
        status = gl.projects.get(fork.id).import_status
    assert status == "finished"
    assert "opensource/handbook-pg" in [f.path_with_namespace for f in project.forks.list(get_all=True)]
