"""Bindings (`api/bindings.py`): one declaration ties an endpoint to the model of its body, and a list is read
from its binding alone, through the list cache (`Services.read(binding, *values, params=, refresh=)`), which
is all a read-only tab needs of the api (issue 35)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from labdeck.api import bindings as b
from labdeck.api.models.groups import Group
from labdeck.api.models.project_resources import RepositoryTag
from labdeck.api.models.projects import Project
from labdeck.api.models.registry import RegistryTag
from labdeck.api.services import Services
from labdeck.domain import catalogue as ep
from labdeck.domain.endpoints import UndeclaredRequest

TAG = {"name": "v1.0", "message": "", "target": "abc", "commit": {"id": "abc", "short_id": "abc"},
       "protected": False}


def test_a_body_is_read_as_its_bindings_model() -> None:
    group = b.GROUP.parse({"id": 7, "name": "Acme", "path": "acme", "full_path": "acme"})
    assert type(group) is Group and group.id == 7
    tags = b.REGISTRY_TAGS.parse([{"name": "v1", "path": "acme/app:v1", "location": "x"}])
    assert [type(tag) for tag in tags] == [RegistryTag]
    assert b.PROJECT_TAGS.endpoint is ep.PROJECT_TAGS and b.PROJECT_TAGS.model is RepositoryTag
    # one decoder reads every issue listing's pages (`issues.issue_rows`): they are one model
    assert {b.ISSUES.model, b.GROUP_ISSUES.model, b.PROJECT_ISSUES.model} == {b.ISSUES.model}


def test_every_endpoint_whose_body_labdeck_reads_has_a_binding() -> None:
    """GET endpoints read raw (no model of their own yet) are kept short and named."""
    raw = {"metadata", "current_job", "application_settings", "group_export_download",
           "group_relations_download", "project_tag_protection_rules"}
    bound = {binding.endpoint.name for binding in b.BINDINGS}
    assert sorted(e.name for e in ep.ENDPOINTS if e.method == "GET" and e.name not in bound | raw) == []
    assert not raw & bound


def test_a_binding_is_of_the_kind_its_endpoint_is() -> None:
    with pytest.raises(TypeError, match="GET"):
        b.Listing(ep.PROJECT_TAG_CREATE, RepositoryTag)
    with pytest.raises(TypeError, match="GET"):
        b.One(ep.PROJECT_UPDATE, Project)
    with pytest.raises(TypeError, match="write"):
        b.Write(ep.PROJECT, Project)


async def test_a_list_is_read_from_its_binding_through_the_cache(make_client: Any) -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=[TAG])

    services = Services(make_client(handler))
    tags = await services.read(b.PROJECT_TAGS, "acme/app", params={"search": "v1"})
    assert [(type(t), t.name) for t in tags] == [(RepositoryTag, "v1.0")]
    assert sent[0].url.raw_path.split(b"?")[0] == b"/api/v4/projects/acme%2Fapp/repository/tags"
    assert sent[0].url.params["search"] == "v1"
    again = await services.read(b.PROJECT_TAGS, "acme/app", params={"search": "v1"})
    assert [t.name for t in again] == ["v1.0"] and len(sent) == 1  # a fresh cached list costs nothing
    await services.read(b.PROJECT_TAGS, "acme/app", params={"search": "v1"}, refresh=True)
    assert len(sent) == 2  # `r`: always read again
    with pytest.raises(UndeclaredRequest):
        await services.read(b.PROJECT_TAGS, "acme/app", params={"with_content": True})
    assert len(sent) == 2


async def test_one_resource_is_read_from_its_binding(make_client: Any) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        project = {"id": 5, "name": "app", "path": "app", "path_with_namespace": "acme/app",
                   "name_with_namespace": "Acme / app"}
        return httpx.Response(200, json=project)

    project = await Services(make_client(handler)).read(b.PROJECT, 5)
    assert type(project) is Project and project.path_with_namespace == "acme/app"
