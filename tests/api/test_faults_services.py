"""The committed services against a faulty sandbox (bad JSON, 503, connection resets, 429) and against
responses of the wrong shape: every call either returns exactly what a healthy server gives or raises a
`LabdeckError` (an API, network or malformed-response error), never anything else."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from faulty_sandbox import FAULTS, SocketLike
from labdeck.api.client import ApiClient
from labdeck.api.errors import LabdeckError, MalformedResponse, ServerError
from labdeck.api.instance import InstanceService
from labdeck.api.models.tolerant import identity_unreadable
from labdeck.api.registry import RegistryService
from labdeck.api.settings import ConnectionSettings, RetryPolicy
from labdeck.api.users import UsersService
from labdeck.domain.moderation import Operation
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store

GATEWAY = "acme/platform/api-gateway"
URL = "http://sandbox.test"


async def no_sleep(seconds: float) -> None:
    return None


def client_for(transport: httpx.AsyncBaseTransport) -> ApiClient:
    settings = ConnectionSettings(url=URL, token=SecretStr("glpat-sandbox-root"), name="t",
                                  retry=RetryPolicy(max_attempts=4, base_delay=0.01, max_delay=0.05,
                                                    max_total=1.0))
    return ApiClient(settings, transport=transport, sleep=no_sleep)


STORE = build_store(SandboxOptions(scale="tiny"), ManualClock())  # read-only tests share one seeded store


def sandbox(faults: str = "", seed: int = 0, *, fresh: bool = False) -> Any:
    options = SandboxOptions(scale="tiny", faults=faults, fault_seed=seed)
    if fresh:
        return create_app(options, clock=ManualClock())
    return create_app(options, store=STORE)


Call = Callable[[ApiClient], Awaitable[Any]]


async def _users(client: ApiClient) -> Any:
    return [u.model_dump() for u in await UsersService(client).list_users(refresh=True)]


async def _me(client: ApiClient) -> Any:
    return (await InstanceService(client).current_user()).username


async def _version(client: ApiClient) -> Any:
    return (await InstanceService(client).version()).model_dump()


async def _repositories(client: ApiClient) -> Any:
    return [r.model_dump() for r in await RegistryService(client).project_repositories(GATEWAY)]


async def _group_repositories(client: ApiClient) -> Any:
    return sorted(r.id for r in await RegistryService(client).group_repositories("acme"))


async def _tag_details(client: ApiClient) -> Any:
    service = RegistryService(client)
    repo = (await service.project_repositories(GATEWAY))[0]
    return [t.model_dump() for t in await service.tag_details(GATEWAY, repo.id)]


READS: dict[str, Call] = {"users": _users, "me": _me, "version": _version,
                          "repositories": _repositories, "group_repositories": _group_repositories,
                          "tag_details": _tag_details}


@pytest.mark.parametrize("name", list(READS))
async def test_reads_under_faults_are_complete_or_a_labdeck_error(name: str) -> None:
    call = READS[name]
    async with client_for(SocketLike(sandbox())) as healthy:
        expected = await call(healthy)
    outcomes = {"ok": 0, "error": 0}
    for seed in range(12):
        async with client_for(SocketLike(sandbox(FAULTS, seed))) as client:
            try:
                got = await call(client)
            except LabdeckError as error:
                assert str(error)  # something to show the operator
                outcomes["error"] += 1
            else:
                assert got == expected, f"seed {seed}: a partial or wrong result"
                outcomes["ok"] += 1
    assert outcomes["ok"] + outcomes["error"] == 12 and outcomes["error"] > 0  # the faults did bite


async def test_moderation_under_faults_is_a_result_never_an_exception() -> None:
    for seed in range(12):
        async with client_for(SocketLike(sandbox(FAULTS, seed, fresh=True))) as client:
            result = await UsersService(client).try_moderate(3, Operation.BLOCK, "bob")
            assert result.ok or result.message


# -- wrong shapes ------------------------------------------------------------------------------------------

def shaped(body: Any, status: int = 200, headers: dict[str, str] | None = None) -> httpx.MockTransport:
    return httpx.MockTransport(lambda request: httpx.Response(status, json=body, headers=headers))


WRONG_SHAPES: list[tuple[str, Any]] = [
    ("users", {"message": "not a list"}),
    ("users", [1, 2, 3]),
    ("me", []),
    ("me", "text"),
    ("me", {"username": "no id"}),
    ("me", None),
    ("version", ["16.0"]),
    ("repositories", {"id": 1}),
    ("group_repositories", [None]),
    ("tag_details", [{"id": 1, "name": "r", "path": "p", "project_id": 1}]),
]


@pytest.mark.parametrize(("name", "body"), WRONG_SHAPES)
async def test_a_wrong_shape_is_a_malformed_response(name: str, body: Any) -> None:
    async with client_for(shaped(body)) as client:
        with pytest.raises(MalformedResponse):
            await READS[name](client)


# Items that do not fit their model but can stand (their id is readable): read tolerantly (issue 15,
# item 4), the unreadable field named, never a failed list.
def _list_users(client: ApiClient) -> Any:
    return UsersService(client).list_users(refresh=True)


ODD_ITEMS: list[tuple[Call, Any, str]] = [
    (_list_users, [{"id": 1, "username": ["x"]}], "username"),
    (_list_users, [{"id": 1, "created_at": "yesterday"}], "created_at"),
    (_list_users, [{"id": 1, "last_activity_on": {"d": 1}}], "last_activity_on"),
    (lambda c: RegistryService(c).project_repositories(GATEWAY), [{"id": 1, "tags_count": "many"}],
     "tags_count"),
]


@pytest.mark.parametrize(("call", "body", "field"), ODD_ITEMS)
async def test_an_odd_item_is_read_with_its_unreadable_field_named(call: Call, body: Any, field: str) -> None:
    async with client_for(shaped(body)) as client:
        [item] = await call(client)
        assert item.id == 1 and item.unreadable == (field,)


# An item whose id cannot be read is kept too (marked; nothing can act on it): never a failed list.
ID_LESS: list[tuple[Call, Any]] = [
    (_list_users, [{"id": "abc", "username": "x"}]),
    (lambda c: RegistryService(c).project_repositories(GATEWAY), [{"name": "no id"}]),
]


@pytest.mark.parametrize(("call", "body"), ID_LESS)
async def test_an_item_whose_id_is_unreadable_is_kept_and_marked(call: Call, body: Any) -> None:
    async with client_for(shaped(body)) as client:
        [item] = await call(client)
        assert item.id < 0 and "id" in item.unreadable and identity_unreadable(item)


async def test_a_non_json_success_body_is_a_malformed_response() -> None:
    transport = httpx.MockTransport(lambda request: httpx.Response(200, text="<html>oops</html>"))
    async with client_for(transport) as client:
        for call in READS.values():
            with pytest.raises(MalformedResponse):
                await call(client)


async def test_absurd_page_totals_do_not_explode() -> None:
    """`x-total-pages` of a billion (a broken proxy, a hostile server) must not start a billion requests."""
    seen: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(str(request.url))
        page = int(request.url.params.get("page", "1"))
        items = [{"id": page, "username": f"u{page}"}] if page <= 3 else []
        return httpx.Response(200, json=items, headers={
            "x-page": str(page), "x-per-page": "1", "x-total-pages": "1000000000", "x-total": "1000000000",
            "x-next-page": str(page + 1) if page < 3 else ""})

    async with client_for(httpx.MockTransport(handler)) as client:
        try:
            users = await UsersService(client).list_users()
        except LabdeckError:
            pass
        else:
            assert [u.id for u in users][:3] == [1, 2, 3]
    assert len(seen) < 5000


async def test_an_html_error_page_becomes_a_short_message() -> None:
    page = "<!DOCTYPE html><html><head><title>GitLab is not responding (502)</title></head><body>" + (
        "<p>padding</p>" * 500) + "</body></html>"
    transport = httpx.MockTransport(lambda request: httpx.Response(
        502, text=page, headers={"content-type": "text/html"}))
    async with client_for(transport) as client:
        with pytest.raises(ServerError) as caught:
            await InstanceService(client).version()
    assert "<" not in caught.value.message and len(caught.value.message) < 200
    assert "502" in str(caught.value)
