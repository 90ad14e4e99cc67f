"""Keyset pagination where GitLab documents it (issue 25), through `WindowedList`: projects by id (the
screen's default, newest first) on the scale sandbox's million projects, and groups by name for anonymous
callers (GitLab pages a signed-in caller's `GET /groups` by number, and so does the sandbox). The request
after the first is the `next` link of the page before, with its cursor, never a page number; the list
stays partial and says so."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import httpx
import pytest
from sandbox_clients import SANDBOX_URL, ClientPool

from labdeck.api.client import ApiClient
from labdeck.api.groups import GroupsService
from labdeck.api.projects import ProjectsService
from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

PAGE_NUMBER = re.compile(r"[?&]page=")


@pytest.fixture
async def huge() -> AsyncIterator[ClientPool]:
    pool = ClientPool(create_app(SandboxOptions(scale="huge", async_delay=0.05)))
    yield pool
    await pool.aclose()


@pytest.fixture
async def tiny() -> AsyncIterator[ClientPool]:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny")))
    yield pool
    await pool.aclose()


def listing(client: ApiClient, path: str) -> list[str]:
    return [e.path for e in client.request_log.entries if e.path.split("?")[0].endswith(path)]


async def test_projects_follow_the_keyset_links_never_a_page_number(huge: ClientPool) -> None:
    client = huge.client()
    window = ProjectsService(client).window(max_rows=300)
    window.readahead = 0
    await window.ensure(250)  # the third page: only the links lead there
    sent = listing(client, "/projects")
    assert len(sent) == 3 and window.offset is False
    assert "pagination=keyset" in sent[0] and "order_by=id" in sent[0]
    for page, path in enumerate(sent[1:], start=1):
        cursor = re.search(r"id_before=\d+", window.links[page])
        assert cursor is not None and cursor.group(0) in path  # the cursor of the link before
        assert not PAGE_NUMBER.search(path)
    ids = [p.id for _, rows in window.held() for p in rows]
    assert ids == sorted(ids, reverse=True) and ids[0] == 1_000_000  # newest first
    # partial and honest: no total (keyset gives none), never complete, says there is more
    assert window.total is None and not window.exhausted and not window.complete
    assert window.count_text(1, 100) == "1-100 of the first 300 (more on the server)"


def anonymous(pool: ClientPool) -> ApiClient:
    client = ApiClient(ConnectionSettings(SANDBOX_URL), transport=httpx.ASGITransport(pool.app))
    pool.clients.append(client)
    return client


async def test_groups_by_keyset_for_anonymous_callers(tiny: ClientPool) -> None:
    client = anonymous(tiny)
    window = GroupsService(client).window(max_rows=None)
    window.per_page = 2
    rows = await window.read_all()
    sent = listing(client, "/groups")
    assert len(rows) >= 3 and len(sent) >= 2 and window.offset is False and window.complete
    assert "pagination=keyset" in sent[0] and "order_by=name" in sent[0] and "sort=asc" in sent[0]
    assert all("cursor=" in path and not PAGE_NUMBER.search(path) for path in sent[1:])
    names = [(g.name.lower(), g.id) for g in rows]
    assert names == sorted(names) and len(set(names)) == len(names)
    everyone = await client.get_list("/groups", {"order_by": "name"})  # the same groups by page number
    assert sorted(g["id"] for g in everyone) == sorted(g.id for g in rows)


async def test_a_signed_in_caller_gets_groups_by_page_number(tiny: ClientPool) -> None:
    client = tiny.client()
    window = GroupsService(client).window(max_rows=None)
    window.per_page = 2
    await window.ensure(2, readahead=False)
    sent = listing(client, "/groups")
    assert window.offset is True and window.total is not None  # GitLab ignores keyset when signed in
    assert PAGE_NUMBER.search(sent[-1]) and "cursor=" not in sent[-1]


async def test_the_sandbox_refuses_group_keyset_in_another_order(tiny: ClientPool) -> None:
    async with httpx.AsyncClient(transport=httpx.ASGITransport(tiny.app), base_url=SANDBOX_URL) as http:
        refused = await http.get("/api/v4/groups", params={"pagination": "keyset", "order_by": "path"})
        assert refused.status_code == 405
        first = await http.get("/api/v4/groups", params={"pagination": "keyset", "per_page": 1})
        assert first.status_code == 200 and "x-page" not in first.headers
        assert "cursor=" in first.headers["link"]
