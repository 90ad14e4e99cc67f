"""Hostile names never become paths: every service method that puts server or user text into a URL path
sends a request naming exactly that resource (issue 22, item 1: an environment named `..` once turned
"replace this protection" into `DELETE /projects/:id`). The client refuses any path that would resolve to
another resource."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from api_fakes import BASE
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from labdeck.api.client import ApiClient
from labdeck.api.deployments import DeploymentsService
from labdeck.api.errors import LabdeckError, UnsafePath
from labdeck.api.labels import GroupLabelsService
from labdeck.api.pages_domains import PagesDomainsService
from labdeck.api.registry import RegistryService
from labdeck.api.repository_tags import TagsService
from labdeck.api.variables import VariablesService
from labdeck.api.wikis import WikiService
from labdeck.domain.deployments import DeployRule

NAMES = st.one_of(
    st.sampled_from([".", "..", "../..", "%2E%2E", "a/b", "?x=1", "#frag", "%", "..%2f", "a\\b", "‮alice"]),
    st.text(alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20),
)

Call = Callable[[ApiClient, str], Awaitable[Any]]

# (what, call, the decoded segments after /api/v4 that the request must name; "N" stands for the name)
CASES: list[tuple[str, Call, list[str]]] = [
    ("protected environment", lambda c, n: DeploymentsService(c).protected_environment(7, n),
     ["projects", "7", "protected_environments", "N"]),
    ("unprotect", lambda c, n: DeploymentsService(c).unprotect(7, n),
     ["projects", "7", "protected_environments", "N"]),
    ("wiki page", lambda c, n: WikiService(c).page(7, n), ["projects", "7", "wikis", "N"]),
    ("wiki delete", lambda c, n: WikiService(c).delete(7, n), ["projects", "7", "wikis", "N"]),
    ("pages domain", lambda c, n: PagesDomainsService(c).domain(7, n),
     ["projects", "7", "pages", "domains", "N"]),
    ("pages delete", lambda c, n: PagesDomainsService(c).delete(7, n),
     ["projects", "7", "pages", "domains", "N"]),
    ("repository tag", lambda c, n: TagsService(c).tag(7, n), ["projects", "7", "repository", "tags", "N"]),
    ("tag delete", lambda c, n: TagsService(c).delete(7, n), ["projects", "7", "repository", "tags", "N"]),
    ("label update", lambda c, n: GroupLabelsService(c).update_label(3, n, color="#ffffff"),
     ["groups", "3", "labels", "N"]),
    ("label delete", lambda c, n: GroupLabelsService(c).delete_label(3, n), ["groups", "3", "labels", "N"]),
    ("project variable", lambda c, n: VariablesService(c).variable(("projects", 7), n),
     ["projects", "7", "variables", "N"]),
    ("group variable delete", lambda c, n: VariablesService(c).delete_variable(("groups", 3), n),
     ["groups", "3", "variables", "N"]),
    ("instance variable", lambda c, n: VariablesService(c).delete_instance_variable(n),
     ["admin", "ci", "variables", "N"]),
    ("registry tag", lambda c, n: RegistryService(c).tag(7, 2, n),
     ["projects", "7", "registry", "repositories", "2", "tags", "N"]),
    ("registry tag delete", lambda c, n: RegistryService(c).delete_tag(7, 2, n),
     ["projects", "7", "registry", "repositories", "2", "tags", "N"]),
    ("project by path", lambda c, n: TagsService(c).tag(n, "v1"),
     ["projects", "N", "repository", "tags", "v1"]),
    ("group by path", lambda c, n: GroupLabelsService(c).delete_label(n, "bug"),
     ["groups", "N", "labels", "bug"]),
]


def _recorder() -> tuple[list[httpx.Request], Callable[[httpx.Request], httpx.Response]]:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(404, json={"message": "404 Not Found"})

    return seen, handler


@pytest.mark.parametrize(("what", "call", "expected"), CASES, ids=[case[0] for case in CASES])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
@example(name="-0")  # a name that reads as a negative number (was refused as an unreadable id)
async def test_the_request_names_the_resource(make_client: Any, what: str, call: Call, expected: list[str],
                                              name: str) -> None:
    seen, handler = _recorder()
    client = make_client(handler)
    try:
        await call(client, name)
    except LabdeckError:
        pass  # the 404 (or a refusal); what matters is what was sent
    assert seen, f"{what}: nothing was sent"
    for request in seen:
        raw = request.url.raw_path.decode("ascii").split("?", 1)[0]
        segments = [unquote(part) for part in raw.split("/")][3:]  # past "", "api", "v4"
        assert segments == [name if part == "N" else part for part in expected], (what, name, raw)


@pytest.mark.parametrize("path", ["/projects/7/protected_environments/..", "/projects/7/./wikis",
                                  "/projects/7/registry/repositories/2/tags/../../.."])
@pytest.mark.parametrize("method", ["GET", "DELETE"])
async def test_the_client_refuses_a_path_that_resolves_elsewhere(make_client: Any, method: str,
                                                                  path: str) -> None:
    seen, handler = _recorder()
    client = make_client(handler)
    with pytest.raises(UnsafePath):
        await client.request(method, path)
    assert seen == []


async def test_a_next_link_with_dot_segments_is_refused(make_client: Any) -> None:
    seen, handler = _recorder()
    client = make_client(handler)
    with pytest.raises(UnsafePath):
        await client.request("GET", BASE + "/api/v4/projects/1/../../users")
    assert seen == []


@pytest.mark.parametrize("answer", [{"id": 7, "name": "api-gateway", "path_with_namespace": "acme/api"},
                                    {"name": "production", "deploy_access_levels": []}])
async def test_adding_a_rule_never_removes_a_protection_it_did_not_read(make_client: Any,
                                                                        answer: dict[str, Any]) -> None:
    """The read of the old protection answers something else (a project, as `..` once made it, or another
    environment's protection): nothing is deleted or created."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=answer)

    service = DeploymentsService(make_client(handler))
    with pytest.raises(LabdeckError):
        await service.add_rule(7, "..", DeployRule(access_level=40))
    assert [request.method for request in seen] == ["GET"]
