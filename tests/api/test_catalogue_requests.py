"""The client holds every request built from the catalogue to what its endpoint declares
(`ApiClient.request`, `Endpoint.refuse_undeclared`): an undeclared query parameter or another method is a
programming error raised before anything is sent; the pagination parameters go to paged lists only. The
service tests, which run against the sandbox, prove every declared set complete; here the filter
dataclasses that feed whole listings are checked field by field."""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

import httpx
import pytest

from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupQuery, ProjectQuery
from labdeck.api.issues import IssuesService
from labdeck.api.users import UsersService
from labdeck.domain import catalogue as ep
from labdeck.domain.endpoints import EndpointPath, RawPath, UndeclaredRequest


def _recording(sent: list[httpx.Request]) -> Any:
    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json=[])
    return handler


async def test_an_undeclared_parameter_is_refused_before_anything_is_sent(make_client: Any) -> None:
    sent: list[httpx.Request] = []
    client = make_client(_recording(sent))
    with pytest.raises(UndeclaredRequest, match=r"query parameter\(s\) colour not declared.*group_badges"):
        await client.get_json(ep.GROUP_BADGES.path("acme"), {"name": "x", "colour": "red"})
    with pytest.raises(UndeclaredRequest, match="sort"):  # a single resource takes no pagination
        await client.get_json(ep.GROUP_BADGE.path("acme", 1), {"sort": "asc"})
    with pytest.raises(UndeclaredRequest):  # every way of reading a list goes through the same check
        await client.get_list(ep.PROJECT_TAGS.path(5), {"with_content": True})
    with pytest.raises(UndeclaredRequest):
        await client.fetch_all(ep.USERS.path(), {"state": "active"})
    with pytest.raises(UndeclaredRequest):  # a value of None is refused too: the name is what is declared
        await client.get_page(ep.GROUPS.path(), {"nope": None})
    assert sent == []


async def test_another_method_on_a_catalogue_path_is_refused(make_client: Any) -> None:
    sent: list[httpx.Request] = []
    client = make_client(_recording(sent))
    with pytest.raises(UndeclaredRequest, match="declares group_badge as GET"):
        await client.request("DELETE", ep.GROUP_BADGE.path("acme", 1))
    assert sent == []


async def test_declared_and_pagination_parameters_pass(make_client: Any) -> None:
    sent: list[httpx.Request] = []
    client = make_client(_recording(sent))
    await client.fetch_all(ep.GROUP_BADGES.path("acme"), {"name": "x"})
    await client.get_json(ep.GROUP.path("acme"), {"with_projects": False})
    await client.get_list(ep.GROUP_OWNED["variables"].path("acme"))
    first_page = {"per_page": "100", "page": "1"}
    assert [dict(r.url.params) for r in sent] == [{"name": "x", **first_page}, {"with_projects": "false"},
                                                  first_page]


async def test_a_path_from_outside_the_catalogue_is_sent_as_it_is(make_client: Any) -> None:
    """`labdeck api`'s paths, `Link` URLs and the journal's stored paths are plain strings: not checked."""
    sent: list[httpx.Request] = []
    client = make_client(_recording(sent))
    await client.get_json("/groups/acme/badges", {"colour": "red"})
    assert sent[0].url.params["colour"] == "red"


def test_a_catalogue_path_is_the_text_sent_and_knows_its_endpoint() -> None:
    path = ep.GROUP_BADGE.path("acme/sub", 3)
    assert isinstance(path, EndpointPath) and path.endpoint is ep.GROUP_BADGE
    assert path == "/groups/acme%2Fsub/badges/3" and hash(path) == hash("/groups/acme%2Fsub/badges/3")


def _fields(cls: Any) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


def test_every_filter_of_a_listing_is_declared_for_its_endpoints() -> None:
    assert _fields(GroupQuery) - {"order_by", "sort"} <= ep.GROUPS.params
    every_group_filter = GroupQuery(**{**{name: True for name in _fields(GroupQuery)},
                                       "skip_groups": (1,), "custom_attributes": {"a": "b"}})
    assert set(every_group_filter.params(top=False)) <= ep.GROUP_SUBGROUPS.accepted
    assert set(every_group_filter.params(top=False)) <= ep.GROUP_DESCENDANTS.accepted
    every_project_filter = ProjectQuery(**{n: True for n in _fields(ProjectQuery)})  # type: ignore[arg-type]
    assert set(every_project_filter.params(shared=False)) <= ep.GROUP_PROJECTS.accepted
    assert set(every_project_filter.params(shared=True)) <= ep.GROUP_SHARED_PROJECTS.accepted
    assert not ep.GROUP_SHARED_PROJECTS.accepted >= {"owned", "with_shared", "include_subgroups"}
    every_user_filter = UsersService.list_params(search="a", active=True, blocked=False,
                                                 exclude_internal=True)
    assert set(every_user_filter) <= ep.USERS.accepted
    compiled: set[str] = set()
    for text in _EVERY_ISSUE_FILTER:
        compiled |= set(IssuesService.listing_params(IssuesService.compile_filter(text)))
    assert {"labels", "not", "in", "iteration_title", "created_before", "my_reaction_emoji"} <= compiled
    for listing in (ep.ISSUES, ep.GROUP_ISSUES, ep.PROJECT_ISSUES):
        assert compiled <= listing.accepted


_EVERY_ISSUE_FILTER = (
    "label:a author:bob assignee:carol milestone:m iteration:it state:opened scope:all confidential:true "
    "due:week type:issue iid:3 weight:2 reaction:thumbsup created>2024-01-01 updated<2024-02-01 "
    "in:title word -label:b -author:x",
    "author_id:3 assignee_id:4 iteration:none created<2024-01-01 updated>2024-01-01 -milestone:m")


@pytest.mark.parametrize("method", ["request", "get_json", "post_json", "put_json", "delete", "get_page",
                                    "pages", "fetch_all", "get_list", "cached_list", "cache_key"])
def test_the_client_takes_catalogue_paths_or_paths_said_to_be_raw(method: str) -> None:
    """The type of every path the client takes: mypy (run in the suite, `test_types.py`) refuses a plain
    `str` anywhere in the source, so a path is the catalogue's or written `RawPath(...)` where it is not
    (a `Link` URL, `labdeck api`'s path, the journal's stored paths, GraphQL's URL)."""
    hints = typing.get_type_hints(getattr(ApiClient, method))
    assert hints["path"] == EndpointPath | RawPath
