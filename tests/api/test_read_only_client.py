"""Read-only is enforced by the client (issue 22 item 10): no POST, PUT, PATCH or DELETE leaves a read-only
session, whatever a screen or service asks (group export and relations export included), and nothing is
sent; GraphQL reads (a POST of queries to `/api/graphql`) still work, a GraphQL mutation does not."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from api_fakes import BASE, settings

from labdeck.api.client import ApiClient
from labdeck.api.errors import ReadOnly
from labdeck.api.group_transfer import GroupTransferService
from labdeck.api.journal import Journal
from labdeck.api.registry_graphql import TAGS_QUERY, RegistryGraphQL
from labdeck.domain.read_only import only_queries, refusal


class Recorder:
    """A MockTransport handler that records every request that reached it."""

    def __init__(self, answer: Any = None) -> None:
        self.sent: list[httpx.Request] = []
        self.answer = answer

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.sent.append(request)
        if self.answer is not None:
            return self.answer(request)
        return httpx.Response(200, json={"ok": True})


def client(recorder: Recorder, read_only: bool = True, url: str = BASE) -> ApiClient:
    return ApiClient(settings(read_only=read_only, url=url), transport=httpx.MockTransport(recorder))


@pytest.mark.parametrize("method", ["POST", "PUT", "PATCH", "DELETE", "post"])
async def test_no_change_leaves_a_read_only_client(method: str) -> None:
    recorder = Recorder()
    async with client(recorder) as api:
        api.journal = Journal()  # refused before the journal reads or records anything
        with pytest.raises(ReadOnly, match="read-only") as refused:
            await api.request(method, "/projects/1/labels", json={"name": "bug"})
        assert "nothing was sent" in str(refused.value)
        assert recorder.sent == [] and api.journal.entries() == []
        assert await api.get_json("/projects/1") == {"ok": True}  # reads still go
    assert [r.method for r in recorder.sent] == ["GET"]


async def test_group_export_and_relations_export_are_refused() -> None:
    recorder = Recorder()
    async with client(recorder) as api:
        transfer = GroupTransferService(api)
        with pytest.raises(ReadOnly):
            await transfer.start_export(7)
        with pytest.raises(ReadOnly):
            await transfer.start_relations_export(7)
    assert recorder.sent == []


async def test_the_same_requests_leave_a_writable_client() -> None:
    recorder = Recorder()
    async with client(recorder, read_only=False) as api:
        await GroupTransferService(api).start_export(7)
    assert [(r.method, r.url.path) for r in recorder.sent] == [("POST", "/api/v4/groups/7/export")]


def graphql_answer(request: httpx.Request) -> httpx.Response:
    return httpx.Response(200, json={"data": {"containerRepository": {
        "tagsCount": 0, "tags": {"nodes": [], "pageInfo": {"hasNextPage": False, "endCursor": None}}}}})


@pytest.mark.parametrize("url", [BASE, BASE + "/gitlab"])
async def test_graphql_queries_still_read_in_read_only_mode(url: str) -> None:
    recorder = Recorder(graphql_answer)
    async with client(recorder, url=url) as api:
        page = await RegistryGraphQL(api).tags_page(12)
        assert page.details == [] and not page.has_next
        with pytest.raises(ReadOnly, match="GraphQL mutation"):
            await api.request("POST", url + "/api/graphql",
                              json={"query": "mutation { destroyContainerRepository(input: {id: \"x\"}) "
                                             "{ errors } }"})
        with pytest.raises(ReadOnly):  # a query endpoint elsewhere is not the instance's GraphQL
            await api.request("POST", "/graphql", json={"query": TAGS_QUERY})
    assert len(recorder.sent) == 1
    sent = recorder.sent[0]
    assert (sent.method, sent.url.path) == ("POST", url.removeprefix(BASE) + "/api/graphql")
    assert json.loads(sent.content)["query"] == TAGS_QUERY


async def test_a_redirect_cannot_turn_a_graphql_read_into_a_change() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        return httpx.Response(307, headers={"location": BASE + "/api/v4/groups/7/export"})

    recorder = Recorder(answer)
    async with client(recorder) as api:
        with pytest.raises(ReadOnly):
            await RegistryGraphQL(api).query(TAGS_QUERY, {"id": "gid://x/1"})
    assert [r.url.path for r in recorder.sent] == ["/api/graphql"]  # the POST to the export never left


def test_which_graphql_documents_only_read() -> None:
    assert only_queries(TAGS_QUERY) and only_queries("{ currentUser { id } }")
    assert only_queries("query a { x ...F } fragment F on T { y }")
    assert not only_queries("mutation { x }")
    assert not only_queries("query a { x } mutation b { y }")
    assert not only_queries("subscription { x }")
    assert not only_queries("query { x")  # does not parse
    assert not only_queries("fragment F on T { y }")  # no operation
    assert refusal("POST", "/api/graphql", {"query": 3}) is not None
    assert refusal("POST", "/api/graphql", None) is not None
    assert refusal("GET", "/anything", None) is None
