"""The list cache: hits, expiry, stale-while-revalidate, family invalidation, persistence, and the client
using it so that revisiting a view within its TTL costs no request."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any

import httpx
from api_fakes import TOKEN, settings

from labdeck.api.cache import ListCache, identity_of, make_key
from labdeck.api.client import ApiClient


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def key(path: str, **params: Any) -> Any:
    return make_key("https://gl.test/", "me", path, params)


def test_hit_fresh_then_stale_after_ttl() -> None:
    clock = Clock()
    cache = ListCache(ttl=60, clock=clock)
    assert cache.get(key("/groups")) is None
    cache.set(key("/groups", search="x"), [1, 2])
    assert cache.get(key("/groups", search="x")) == ([1, 2], True)
    assert cache.get(key("/groups", search="y")) is None
    clock.now += 61
    assert cache.get(key("/groups", search="x")) == ([1, 2], False)
    assert cache.age(key("/groups", search="x")) == 61


def test_params_are_normalised() -> None:
    assert key("/issues", labels=["a", "b"], state="opened", milestone=None) == key(
        "issues/", state="opened", labels=["a", "b"])
    assert key("/issues", confidential=True) != key("/issues", confidential=False)


def test_invalidate_family() -> None:
    cache = ListCache()
    for path in ("/groups/5/labels", "/groups/5/labels/3/subscribe", "/groups/50/labels", "/groups/5",
                 "/groups", "/projects"):
        cache.set(key(path), [path])
    dropped = cache.invalidate("/groups/5/labels")
    assert dropped == 4  # the family itself, below it, and the lists above it
    assert cache.get(key("/groups/50/labels")) is not None
    assert cache.get(key("/projects")) is not None
    assert cache.get(key("/groups/5/labels")) is None and cache.get(key("/groups")) is None


def test_identity_never_holds_the_token() -> None:
    ident = identity_of(TOKEN, None)
    assert TOKEN not in ident and ident != identity_of(TOKEN, "alice") != identity_of("other", None)


async def test_persistence_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "cache.sqlite"
    first = ListCache(ttl=60, persist_path=path)
    first.set(key("/groups"), [{"id": 1, "name": "g"}])
    first.set(key("/projects", search="a;b"), [{"id": 2}])
    first.set(key("/users"), [{"id": 3}])
    first.invalidate("/users")
    await first.flush()
    first.close()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    second = ListCache(ttl=60, persist_path=path)
    assert await second.load() == 2
    assert second.get(key("/groups")) == ([{"id": 1, "name": "g"}], True)
    assert second.get(key("/projects", search="a;b")) == ([{"id": 2}], True)
    assert second.get(key("/users")) is None


def test_sync_persistence_without_a_loop(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    ListCache(persist_path=path).set(key("/x"), [1])
    clock = Clock()
    clock.now = 10**10
    later = ListCache(ttl=60, persist_path=path, clock=clock)
    assert later.load_sync() == 1
    assert later.get(key("/x")) == ([1], False)  # painted at once, flagged for refresh


class Counting:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.method != "GET":
            return httpx.Response(201, json={"id": 9})
        return httpx.Response(200, json=[{"id": len(self.requests)}], headers={"x-total-pages": "1"})


async def test_revisit_within_ttl_costs_zero_requests() -> None:
    clock = Clock()
    counting = Counting()
    cache = ListCache(ttl=60, clock=clock)
    client = ApiClient(settings(), transport=httpx.MockTransport(counting), cache=cache)
    async with client:
        first = await client.get_list("/groups/5/labels")
        again = await client.get_list("/groups/5/labels")
        assert again == first and len(counting.requests) == 1
        assert client.cached_list("/groups/5/labels") == (first, True)
        clock.now += 120
        assert client.cached_list("/groups/5/labels") == (first, False)  # stale: paint, then refresh
        refreshed = await client.get_list("/groups/5/labels")
        assert len(counting.requests) == 2 and refreshed != first
        await client.get_list("/groups/5/labels", refresh=True)
        assert len(counting.requests) == 3


async def test_mutation_invalidates_its_family() -> None:
    counting = Counting()
    client = ApiClient(settings(), transport=httpx.MockTransport(counting))
    async with client:
        await client.get_list("/groups/5/labels")
        await client.get_list("/projects")
        await client.post_json("/groups/5/labels", {"name": "bug", "color": "#ff0000"})
        assert client.cached_list("/groups/5/labels") is None
        assert client.cached_list("/projects") is not None
        await client.get_list("/groups/5/labels")
        assert [r.method for r in counting.requests] == ["GET", "GET", "POST", "GET"]


async def test_cache_is_per_identity() -> None:
    cache = ListCache()
    counting = Counting()
    async with ApiClient(settings(), transport=httpx.MockTransport(counting), cache=cache) as root, \
            ApiClient(settings(sudo="alice"), transport=httpx.MockTransport(counting), cache=cache) as alice:
        await root.get_list("/projects")
        await alice.get_list("/projects")
    assert len(counting.requests) == 2


async def test_mutation_on_an_encoded_project_path_invalidates_its_lists() -> None:
    """Lists cached under `acme%2Fapi` are dropped by a mutation however the path is spelled."""
    counting = Counting()
    client = ApiClient(settings(), transport=httpx.MockTransport(counting))
    async with client:
        await client.get_list("/projects/acme%2Fapi/deployments")
        await client.get_list("/projects/acme%2Fapi/environments")
        await client.put_json("/projects/acme%2Fapi/deployments/7", {"status": "success"})
        assert client.cached_list("/projects/acme%2Fapi/deployments") is None
        assert client.cached_list("/projects/acme/api/deployments") is None
        assert client.cached_list("/projects/acme%2Fapi/environments") is not None


async def test_a_change_drops_the_families_the_catalogue_declares() -> None:
    """A deployment created by any caller (here a raw request, as `labdeck api` sends it) drops the
    project's cached environments too: the catalogue says a new deployment may create one."""
    counting = Counting()
    client = ApiClient(settings(), transport=httpx.MockTransport(counting))
    async with client:
        await client.get_list("/projects/acme%2Fapi/environments")
        await client.get_list("/projects/acme%2Fapi/forks")
        await client.request("POST", "/projects/acme%2Fapi/deployments", json={"status": "running"})
        assert client.cached_list("/projects/acme%2Fapi/environments") is None
        assert client.cached_list("/projects/acme%2Fapi/forks") is not None


async def test_cached_models_persist_as_their_json(tmp_path: Path) -> None:
    """A listing cached as parsed models (the issues service) is persisted as their JSON data and read
    back as dicts that parse to the same models."""
    from labdeck.api.issues import parse_issue_list

    issues = parse_issue_list([{"id": 1, "iid": 2, "project_id": 3, "title": "t",
                                "created_at": "2026-01-02T03:04:05Z", "author": {"id": 9, "username": "u"}}])
    path = tmp_path / "cache.sqlite"
    first = ListCache(ttl=60, persist_path=path)
    first.set(key("/issues"), issues)
    await first.flush()
    first.close()
    second = ListCache(ttl=60, persist_path=path)
    assert await second.load() == 1
    hit = second.get(key("/issues"))
    assert hit is not None and isinstance(hit[0][0], dict)
    assert parse_issue_list(hit[0]) == issues
