"""Hostile redirects and token echoes: a redirect off the instance's origin is never followed (nothing, not
even the body, goes to the other host) and is reported naming that host; a token the server echoes, in any
shape (a 20-character legacy token, a 64-hex OAuth token), never reaches an error, the request log, a
notification line or `labdeck api`'s output."""

from __future__ import annotations

import httpx
import pytest
from hostile_server import (
    BASE_URL,
    TOKENS,
    Call,
    build_app,
    hostile_settings,
    html_answer,
    json_answer,
    raw_answer,
    redirect_answer,
)

from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, OffOriginRedirect
from labdeck.cli.support import describe_error

pytestmark = pytest.mark.timeout(60)
ELSEWHERE = ["https://evil.example.net/api/v4/projects", "http://gitlab.hostile.test/api/v4/projects",
             "https://gitlab.hostile.test:8443/api/v4/projects", "//evil.example.net/x"]


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
@pytest.mark.parametrize("target", ELSEWHERE)
@pytest.mark.parametrize("method", ["GET", "POST", "PUT"])
async def test_a_redirect_off_the_origin_is_refused_and_named(status: int, target: str, method: str) -> None:
    app = build_app({"/projects": redirect_answer(status, target, body=b'{"moved": true}')})
    async with ApiClient(hostile_settings(), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(OffOriginRedirect) as caught:
            await client.request(method, "/projects", json=None if method == "GET" else {"name": "body"})
    host = httpx.URL(target if "://" in target else "https:" + target).netloc.decode()
    assert caught.value.target_host == host and host in str(caught.value)
    assert str(status) in str(caught.value) and "not followed" in str(caught.value)
    assert app.hosts() == {"gitlab.hostile.test"} and len(app.calls) == 1  # the body went nowhere else
    assert client.request_log.entries[-1].error == str(caught.value)


async def test_a_redirect_on_the_origin_is_followed() -> None:
    app = build_app({"/old": redirect_answer(308, BASE_URL + "/api/v4/new"), "/new": json_answer({"ok": 1})})
    async with ApiClient(hostile_settings(), transport=httpx.ASGITransport(app=app)) as client:
        assert await client.get_json("/old") == {"ok": 1}


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_labdeck_api_reports_a_cross_host_redirect(labdeck_api, status: int) -> None:
    app = build_app({"/projects": redirect_answer(status, "https://evil.example.net/steal")})
    line = labdeck_api(["projects", "-X", "POST", "-f", "name=x"], app, hostile_settings()).one_clear_line()
    assert "evil.example.net" in line and "not followed" in line
    assert app.hosts() == {"gitlab.hostile.test"}


def test_a_redirect_to_an_invalid_url_is_a_clear_error(labdeck_api) -> None:
    app = build_app({"/projects": redirect_answer(302, "http://[::1")})
    assert "invalid url" in labdeck_api(["projects"], app, hostile_settings()).one_clear_line().lower()


def echo(token: str, status: int) -> object:
    def handler(call: Call) -> object:
        bearer = call.headers.get("authorization", "").removeprefix("Bearer ")
        sent = call.headers.get("private-token") or bearer
        assert sent == token  # the real token was sent, in its header
        return json_answer({"message": f"401 Unauthorized: token {sent} is revoked", "error": sent}, status)
    return handler


@pytest.mark.parametrize("kind", sorted(TOKENS))
@pytest.mark.parametrize("status", [400, 401, 403, 422, 500])
async def test_an_echoed_token_never_reaches_an_error_or_the_log(kind: str, status: int) -> None:
    token, auth = TOKENS[kind]
    app = build_app({"/user": echo(token, status)})
    async with ApiClient(hostile_settings(token, auth), transport=httpx.ASGITransport(app=app)) as client:
        with pytest.raises(ApiError) as caught:
            await client.get_json("/user")
    error = caught.value
    assert token not in str(error) and token not in error.message and "[redacted]" in error.message
    assert token not in describe_error(error)
    assert all(token not in (entry.error or "") + entry.path for entry in client.request_log.entries)


@pytest.mark.parametrize("kind", sorted(TOKENS))
def test_labdeck_api_never_prints_the_configured_token(labdeck_api, kind: str) -> None:
    token, auth = TOKENS[kind]
    app = build_app({"/user": echo(token, 401),
                     "/page": html_answer(502, title=f"proxy rejected {token}"),
                     "/mirror": lambda call: json_answer({"you_sent": token, "list": [token]}),
                     "/text": raw_answer(f"plain {token} text", content_type="text/plain")})
    settings = hostile_settings(token, auth)
    for path in ("user", "page", f"projects?private_token={token}"):
        result = labdeck_api([path], app, settings)
        assert result.status == 1 and token not in result.err + result.out, path
    for path in ("mirror", "text"):
        result = labdeck_api([path], app, settings)
        assert result.status == 0 and token not in result.out and "[redacted]" in result.out
