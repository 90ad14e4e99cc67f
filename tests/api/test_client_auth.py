"""Auth headers: the right header per auth kind, Sudo, and never to another host (Link or redirect)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from api_fakes import BASE, TOKEN

from labdeck.api.errors import OffOriginRedirect
from labdeck.api.request_log import redact_url

AUTH_NAMES = ("private-token", "authorization", "job-token", "sudo")


@pytest.mark.parametrize(("auth", "header", "value"), [
    ("private", "PRIVATE-TOKEN", TOKEN),
    ("oauth", "Authorization", f"Bearer {TOKEN}"),
    ("job", "JOB-TOKEN", TOKEN),
])
async def test_each_auth_kind_sends_its_header(make_client: Any, auth: str, header: str, value: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    client = make_client(handler, auth=auth)
    assert await client.get_json("/version") == {"ok": True}
    sent = seen[0].headers
    assert sent[header] == value
    others = {"PRIVATE-TOKEN", "Authorization", "JOB-TOKEN"} - {header}
    assert not any(name in sent for name in others)
    assert "Sudo" not in sent
    assert TOKEN not in str(seen[0].url)
    assert str(seen[0].url) == f"{BASE}/api/v4/version"


async def test_sudo_header_and_no_token(make_client: Any) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json=[])

    await make_client(handler, sudo="alice").get_json("/users")
    assert seen[0].headers["Sudo"] == "alice"
    await make_client(handler, token=None).get_json("/projects")
    assert not any(name in seen[1].headers for name in AUTH_NAMES)


async def test_link_to_another_host_gets_no_auth(make_client: Any) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.url.host == "gitlab.example.com":
            link = '<https://evil.example.net/api/v4/projects?page=2>; rel="next"'
            return httpx.Response(200, json=[{"id": 1}], headers={"link": link})
        return httpx.Response(200, json=[{"id": 2}])

    client = make_client(handler, sudo="root")
    items = await client.fetch_all("/projects", mode="sequential")
    assert items == [{"id": 1}, {"id": 2}]
    assert seen[0].headers["PRIVATE-TOKEN"] == TOKEN
    assert seen[1].url.host == "evil.example.net"
    assert not any(name in seen[1].headers for name in AUTH_NAMES)


@pytest.mark.parametrize("target", ["https://evil.example.net/steal", "http://gitlab.example.com/x",
                                    "https://gitlab.example.com:8443/x"])
async def test_redirect_elsewhere_is_not_followed(make_client: Any, target: str) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(302, headers={"location": target})
        return httpx.Response(200, json={"ok": 1})

    with pytest.raises(OffOriginRedirect) as caught:
        await make_client(handler, auth="oauth").get_json("/projects/1")
    assert len(seen) == 1 and "Authorization" in seen[0].headers
    assert caught.value.target_host == httpx.URL(target).netloc.decode()
    assert caught.value.target_host in str(caught.value) and "not followed" in str(caught.value)


async def test_redirect_on_same_host_keeps_auth(make_client: Any) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if len(seen) == 1:
            return httpx.Response(301, headers={"location": "/api/v4/projects/2"})
        return httpx.Response(200, json={"id": 2})

    assert await make_client(handler).get_json("/projects/1") == {"id": 2}
    assert seen[1].headers["PRIVATE-TOKEN"] == TOKEN


async def test_token_never_in_request_log_or_repr(make_client: Any) -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/fail"):
            return httpx.Response(404, json={"message": "404 Not Found"})
        return httpx.Response(200, json=[])

    client = make_client(handler, sudo="alice")
    await client.get_json("/projects", {"private_token": TOKEN, "access_token": TOKEN, "job_token": TOKEN,
                                        "my_token": TOKEN, "search": "keep"})
    with pytest.raises(Exception, match="404"):
        await client.get_json("/fail")
    entries = client.request_log.entries
    assert len(entries) == 2
    assert all(TOKEN not in repr(e) for e in entries)
    assert "search=keep" in entries[0].path
    assert entries[1].status == 404 and entries[1].error == "404 Not Found"
    assert TOKEN not in repr(client) and TOKEN not in repr(client.settings)
    assert TOKEN not in client.identity


def test_redact_url_strips_token_like_values_and_credentials() -> None:
    cleaned = redact_url("https://u:pw@h.test/a?private_token=abc&page=2&access_token=def&token=x")
    assert "abc" not in cleaned and "def" not in cleaned and "pw" not in cleaned and "=x" not in cleaned
    assert "page=2" in cleaned and cleaned.startswith("https://h.test/a?")


async def test_origin_comparison_normalises_case_and_default_port(make_client: Any) -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    client = make_client(handler, url="https://GitLab.Example.com:443/")
    await client.get_json("/user")
    await client.get_json("https://gitlab.example.com/api/v4/user")
    assert all(r.headers.get("PRIVATE-TOKEN") == TOKEN for r in seen)
    assert [e.path for e in client.request_log.entries] == ["/user", "/user"]
