"""GitLab's own documented example responses, read through labdeck's services (issue 15, item 4).

Each file under `tests/fixtures/gitlab_docs/` holds the example responses of one area, copied from the API
page it names (`doc`, with the commit of `gitlabhq/gitlabhq` it was read at). Every example is served by a
mock transport at its endpoint and read by the service method labdeck uses for it: every item must come
back, with nothing unreadable. Then tolerant reading itself: an item that does not fit (a new enum value,
a null where a string was expected, a wrong type) is kept with its unreadable fields named, and `:log`
gets a note.
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from labdeck.api import bindings
from labdeck.api.badges import BadgesService
from labdeck.api.client import ApiClient
from labdeck.api.deployments import DeploymentsService
from labdeck.api.groups import GroupsService
from labdeck.api.issues import IssuesService
from labdeck.api.labels import GroupLabelsService
from labdeck.api.members import MembersService
from labdeck.api.pages_domains import PagesDomainsService
from labdeck.api.registry import RegistryService
from labdeck.api.repository_tags import TagsService
from labdeck.api.users import UsersService
from labdeck.api.variables import VariablesService

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gitlab_docs"
Call = Callable[[ApiClient], Awaitable[Any]]

# endpoint as written in the fixture -> how labdeck reads it
READERS: dict[str, Call] = {
    "GET /groups": lambda c: GroupsService(c).list_groups(),
    "GET /groups/:id/projects": lambda c: GroupsService(c).projects(5),
    "GET /groups/:id": lambda c: GroupsService(c).get_group(4),
    "GET /issues": lambda c: IssuesService(c).load(),
    "GET /groups/:id/issues": lambda c: IssuesService(c).load(group=4),
    "GET /groups/:id/members/all": lambda c: MembersService(c).list_members(("groups", 5), inherited=True),
    "GET /groups/:id/billable_members": lambda c: MembersService(c).billable_members(5),
    "GET /projects/:id/deployments": lambda c: DeploymentsService(c).deployments(1),
    "POST /projects/:id/deployments": lambda c: DeploymentsService(c).create_deployment(
        1, environment="production", sha="a91957a8", ref="main", tag=False, status="success"),
    "GET /groups/:id/variables": lambda c: VariablesService(c).variables(("groups", 5)),
    "GET /groups/:id/variables/:key": lambda c: VariablesService(c).variable(("groups", 5),
                                                                                 "TEST_VARIABLE_1"),
    "PUT /groups/:id/variables/:key": lambda c: VariablesService(c).update_variable(
        ("groups", 5), "NEW_VARIABLE", "updated value"),
    "GET /projects/:id/variables": lambda c: VariablesService(c).variables(("projects", 1)),
    "GET /projects/:id/variables/:key": lambda c: VariablesService(c).variable(("projects", 1),
                                                                                   "TEST_VARIABLE_1"),
    "POST /projects/:id/variables": lambda c: VariablesService(c).create_variable(
        ("projects", 1), "NEW_VARIABLE", "new value"),
    "PUT /projects/:id/variables/:key": lambda c: VariablesService(c).update_variable(
        ("projects", 1), "NEW_VARIABLE", "updated value", protected=True),
    "GET /groups/:id/labels": lambda c: GroupLabelsService(c).list_labels(5),
    "GET /groups/:id/badges": lambda c: BadgesService(c).list_badges(5),
    "GET /groups/:id/badges/render": lambda c: BadgesService(c).render(
        5, "http://example.com/ci_status.svg?project=%{project_path}&ref=%{default_branch}",
        "https://shields.io/my/badge"),
    "GET /projects/:id/repository/tags": lambda c: bindings.PROJECT_TAGS.read(c, 5),
    "GET /projects/:id/repository/tags/:tag_name": lambda c: TagsService(c).tag(5, "v5.0.0"),
    "POST /projects/:id/repository/tags": lambda c: TagsService(c).create(5, "v1.0.0", "main"),
    "GET /projects/:id/registry/repositories": lambda c: RegistryService(c).project_repositories(5),
    "GET /groups/:id/registry/repositories": lambda c: RegistryService(c).group_repositories(2),
    "GET /registry/repositories/:id": lambda c: RegistryService(c).repository(2, tags_count=True),
    "GET /projects/:id/registry/repositories/:repository_id/tags": lambda c: RegistryService(c).tags(5, 2),
    "GET /projects/:id/registry/repositories/:repository_id/tags/:tag_name":
        lambda c: RegistryService(c).tag(5, 2, "v10.0.0"),
    "GET /projects/:id/forks": lambda c: bindings.PROJECT_FORKS.read(c, 5),
    "GET /users": lambda c: UsersService(c).list_users(),
    "GET /pages/domains": lambda c: bindings.ALL_PAGES_DOMAINS.read(c),
    "GET /projects/:id/pages/domains": lambda c: bindings.PROJECT_PAGES_DOMAINS.read(c, 5),
    "POST /projects/:id/pages/domains": lambda c: PagesDomainsService(c).create(5, "ssl.domain.example",
                                                                             auto_ssl_enabled=True),
}


def _examples() -> list[Any]:
    out = []
    for path in sorted(FIXTURES.glob("*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        assert data["doc"].startswith("doc/api/") and len(data["commit"]) == 40
        for example in data["examples"]:
            name = f"{path.stem}:{example['endpoint']}"
            out.append(pytest.param(example["endpoint"], example["body"], id=name))
    return out


def _pattern(endpoint: str) -> tuple[str, re.Pattern[str]]:
    method, template = endpoint.split(" ", 1)
    regex = re.sub(r":\w+", "[^/]+", template)
    return method, re.compile(f"^/api/v4{regex}$")


@pytest.mark.parametrize(("endpoint", "body"), _examples())
async def test_every_documented_example_is_read(make_client: Any, endpoint: str, body: Any) -> None:
    method, pattern = _pattern(endpoint)
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        if request.method == method and pattern.match(request.url.path):
            return httpx.Response(201 if method == "POST" else 200, json=body)
        return httpx.Response(404, json={"message": "404 Not Found"})

    client = make_client(handler)
    result = await READERS[endpoint](client)
    assert any(pattern.match(s.split(" ", 1)[1]) for s in seen), seen
    items = result if isinstance(result, list) else [result]
    expected = body if isinstance(body, list) else [body]
    assert len(items) == len(expected)  # every item read, none left out
    for item, raw in zip(items, expected, strict=True):
        assert item.unreadable == (), (endpoint, item.unreadable)
        for key in ("id", "key", "domain", "name"):
            if key in raw and key in type(item).model_fields:
                assert getattr(item, key) == raw[key]
    assert not [e for e in client.request_log.entries if e.kind == "decode"]


def test_every_reader_has_an_example() -> None:
    documented = {param.values[0] for param in _examples()}
    assert documented == set(READERS)


# --- tolerant reading ---------------------------------------------------------------------------------

MEMBERS = [
    {"id": 1, "username": "ok", "name": "Fine", "state": "active", "access_level": 30,
     "expires_at": "2012-10-22T14:13:35Z"},
    {"id": 2, "username": "odd", "name": None, "state": "active", "access_level": "thirty",
     "created_at": "not a time"},
    {"id": "three", "username": "no-id"},
    {"id": 4, "username": "fine", "access_level": 40},
]


async def test_one_item_that_does_not_fit_never_fails_the_list(make_client: Any) -> None:
    client = make_client(lambda request: httpx.Response(200, json=MEMBERS))
    members = await MembersService(client).list_members(("groups", 5))
    assert [m.id for m in members][::3] == [1, 4] and len(members) == 4  # none left out
    first, odd, three, fine = members
    assert three.id < 0 and three.username == "no-id" and three.unreadable == ("id",)
    assert first.unreadable == () and str(first.expires_at) == "2012-10-22"  # a datetime read as its date
    assert odd.username == "odd" and set(odd.unreadable) >= {"access_level", "created_at"}
    assert odd.created_at is None
    assert fine.unreadable == ()
    notes = [e for e in client.request_log.entries if e.kind == "decode"]
    assert {n.path for n in notes} == {"Member #2", "Member #three"}
    assert all(n.method == "READ" and n.status is None and n.error for n in notes)
    assert "access_level" in next(n.error for n in notes if n.path == "Member #2")
    assert "nothing can act on it" in next(n.error for n in notes if n.path == "Member #three")


async def test_an_unknown_enum_value_is_kept_readable(make_client: Any) -> None:
    """A status a newer GitLab added (the deployments listing has gained `blocked`, `skipped`)."""
    client = make_client(lambda request: httpx.Response(200, json=[
        {"id": 1, "iid": 1, "ref": "main", "sha": "a" * 40, "status": "waiting_for_approval",
         "environment": {"id": 1, "name": "production"}}]))
    deployments = await DeploymentsService(client).deployments(1)
    assert deployments[0].status == "waiting_for_approval" and deployments[0].unreadable == ()


async def test_nested_and_null_fields_are_named(make_client: Any) -> None:
    client = make_client(lambda request: httpx.Response(200, json=[
        {"id": 1, "ref": None, "sha": "b" * 40, "status": "success", "user": {"id": "x", "username": "root"},
         "deployable": {"id": 5, "name": "deploy", "created_at": "yesterday"}},
        {"id": 2, "ref": "main", "sha": "c" * 40, "status": "success"}]))
    first, second = await DeploymentsService(client).deployments(1)
    assert first.ref == "" and first.user is None and first.deployable is not None
    assert first.deployable.name == "deploy" and first.deployable.created_at is None
    assert set(first.unreadable) == {"ref", "user", "deployable.created_at"}
    assert second.unreadable == () and second.ref == "main"
    [note] = [e for e in client.request_log.entries if e.kind == "decode"]
    assert note.path == "Deployment #1" and "deployable" in (note.error or "")
    assert "yesterday" not in (note.error or "")  # the reason, never the value
