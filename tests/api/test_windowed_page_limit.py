"""A list read on demand that stops at `max_pages` while the listing goes on is cut, and says so (issue 32
item 8): it is never complete (so never filtered, sorted or cached as the whole list), its count says how
many rows it holds and why it stops ("the first 300 of 2,500, cut at max_pages"), whether the server
gives totals or not; a listing that ends at the limit is whole."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from typing import Any

import httpx
import pytest
from sandbox_clients import sandbox_settings

from labdeck.api.client import ApiClient
from labdeck.api.issues import IssuesService
from labdeck.api.users import UsersService
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

Make = Callable[..., ApiClient]


@pytest.fixture
async def client_for() -> AsyncIterator[Make]:
    clients: list[ApiClient] = []

    def make(max_pages: int, **options: Any) -> ApiClient:
        app = create_app(SandboxOptions(**{"scale": "tiny", **options}))
        settings = replace(sandbox_settings(), max_pages=max_pages)
        client = ApiClient(settings, transport=httpx.ASGITransport(app))
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.aclose()


async def test_a_list_with_totals_cut_at_max_pages_is_not_complete(client_for: Make) -> None:
    client = client_for(3, virtual_users=2_500)
    service = UsersService(client)
    window = service.window(max_rows=None)
    rows = await window.read_all()
    assert len(rows) == 300  # pages 1 to 3 of 25
    assert not window.complete
    assert window.count_text(1, 20) == "1-20 of the first 300 of 2,500, cut at max_pages"
    assert window.cut
    assert not service.remember(window)  # never cached as the whole list


async def test_a_list_without_totals_cut_at_max_pages_is_not_complete(client_for: Make) -> None:
    """Above 10,000 records GitLab sends no totals: the cut is known from the `next` link of the last
    page read (GitLab's doc/api/rest/_index.md, "Pagination response headers": no x-total,
    x-total-pages nor rel="last" above 10,000 records)."""
    window = IssuesService(client_for(2, virtual_issues=50_000)).window(max_rows=None)
    await window.start()
    assert window.total is None
    assert await window.ensure(250) == []  # past the limit: nothing is read
    assert window.requests == 2
    assert not window.complete and window.known == 200
    assert window.count_text() == "the first 200, cut at max_pages (more on the server)"
    assert window.cut and window.exhausted  # nothing more will be read, and it says why


async def test_a_list_that_ends_at_max_pages_is_whole(client_for: Make) -> None:
    window = UsersService(client_for(3, virtual_users=300)).window(max_rows=None)
    rows = await window.read_all()
    assert len(rows) == 300 and window.complete and not window.cut
    assert window.count_text(1, 20) == "1-20 of 300"
