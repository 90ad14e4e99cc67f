"""The client and `InstanceService` against the embedded sandbox (ASGI, no socket): headers, pagination
modes and sudo as a real GitLab-compatible server sends them."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest
from sandbox_clients import ClientPool

from labdeck.api.client import ApiClient
from labdeck.api.errors import Forbidden, Unauthorized
from labdeck.api.instance import InstanceService

sandbox_app = pytest.importorskip("labdeck.sandbox.app")
sandbox_options = pytest.importorskip("labdeck.sandbox.options")


@pytest.fixture(scope="module")
def app() -> Any:
    return sandbox_app.create_app(sandbox_options.SandboxOptions(scale="demo"))


@pytest.fixture
async def connect(app: Any) -> AsyncIterator[Callable[..., ApiClient]]:
    pool = ClientPool(app)
    yield pool.client
    await pool.aclose()


async def test_instance_service(connect: Callable[..., ApiClient]) -> None:
    service = InstanceService(connect())
    assert (await service.version()).major_minor is not None
    me = await service.current_user()
    assert me.username == "root" and me.is_admin is True
    assert (await InstanceService(connect(sudo="alice")).current_user()).username == "alice"


async def test_auth_failures(connect: Callable[..., ApiClient]) -> None:
    with pytest.raises(Unauthorized):
        await connect(token="glpat-wrong").get_json("/user")
    with pytest.raises(Forbidden, match="insufficient_scope"):
        await connect(token="glpat-sandbox-nosudo", sudo="alice").get_json("/user")


async def test_every_fetch_mode_sees_the_same_projects(connect: Callable[..., ApiClient]) -> None:
    client = connect()
    auto = await client.fetch_all("/projects", {"order_by": "id", "sort": "asc"}, per_page=20)
    sequential = await client.fetch_all("/projects", {"order_by": "id", "sort": "asc"}, per_page=20,
                                        mode="sequential")
    keyset = await client.fetch_all("/projects", {"order_by": "id", "sort": "asc"}, per_page=20, keyset=True)
    ids = [p["id"] for p in auto]
    assert len(ids) > 20 and len(set(ids)) == len(ids)
    assert ids == [p["id"] for p in sequential] == [p["id"] for p in keyset]
    assert client.rate_limit.limit is not None and client.rate_limit.remaining is not None
