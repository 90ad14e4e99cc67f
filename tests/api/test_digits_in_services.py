"""Digits are ASCII digits in the service layer (issue 32 item 9): a GraphQL global id, a `Content-Length` or
a typed "id or name" holding `²` (a digit to `str.isdigit`, not to `int`) or `٣` (3 to `int`) is not a number:
no exception reaches a screen, and nothing is sent for a record the text only resembles."""

from __future__ import annotations

import json
from typing import Any

import httpx

from labdeck.api.cleanup_policy import CleanupPolicyService
from labdeck.api.deployments import DeploymentsService


def graphql_states(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/api/graphql":
        nodes = [{"id": f"gid://gitlab/ContainerRepository/{n}", "expirationPolicyStartedAt": None,
                  "expirationPolicyCleanupStatus": "UNSCHEDULED"} for n in ("²", "٣", "7")]
        return httpx.Response(200, json={"data": {"project": {"containerRepositories": {"nodes": nodes}}}})
    return httpx.Response(404, json={"message": "404 Not Found"})


async def test_a_global_id_with_a_wide_digit_is_skipped(make_client: Any) -> None:
    service = CleanupPolicyService(make_client(graphql_states))
    states = await service.cleanup_states("acme/app")
    assert list(states) == [7]


async def test_a_typed_wide_digit_is_a_name_not_an_id(make_client: Any) -> None:
    asked: list[str] = []

    def users(request: httpx.Request) -> httpx.Response:
        asked.append(request.url.params.get("username", ""))
        return httpx.Response(200, json=[])

    service = DeploymentsService(make_client(users))
    assert await service.find_user_id("٣") is None  # not user 3: looked up as a username, none found
    assert await service.find_user_id("²") is None
    assert asked == ["٣", "²"]
    assert await service.find_user_id("12") == 12 and asked == ["٣", "²"]


async def test_a_content_length_with_a_wide_digit_is_not_a_length(make_client: Any) -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.dumps({"id": 1}).encode()
        return httpx.Response(200, content=body, headers=[(b"content-length", "²".encode("latin-1"))])

    client = make_client(answer)
    assert await client.get_json("/projects/1") == {"id": 1}
