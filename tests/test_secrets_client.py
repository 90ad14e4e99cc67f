"""Tokens stay in auth headers: never in reprs, error messages, the request log, a notification, a crash
report or `labdeck api` output, even when the token itself is broken (a line break from a token file) or
does not look like a GitLab token (OAuth)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).parent / "tui"))

import labdeck.cli.api as api_cli
from labdeck.api.client import ApiClient
from labdeck.api.errors import DeadlineExceeded, LabdeckError, OffOriginRedirect
from labdeck.api.settings import ConnectionSettings, RetryPolicy, Timeouts
from labdeck.cli.api import run_api_command

BASE = "https://gitlab.example.com"
OAUTH = "0a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f6071"  # looks like nothing in particular


def files(folder: Path) -> list[Path]:
    return list(folder.iterdir())


def settings(token: str, **extra: Any) -> ConnectionSettings:
    return ConnectionSettings(url=BASE, token=SecretStr(token), name="work", **extra)


@pytest.mark.parametrize("token", ["glpat-abc123xyz\nX-Evil: 1", "zq8secret7 with spaces", "sëcret-tøken-q9",
                                   "zz8tab\tqq9here"])
async def test_a_token_that_cannot_be_a_header_is_refused_without_quoting_it(token: str) -> None:
    sent: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        return httpx.Response(200, json={})

    async with ApiClient(settings(token), transport=httpx.MockTransport(handler)) as api:
        with pytest.raises(LabdeckError) as caught:
            await api.get_json("/user")
        logged = " ".join(str(e) for e in api.request_log.entries)
    assert sent == []
    secret = token.split()[0]
    assert secret not in str(caught.value) and secret not in logged
    assert "work" in str(caught.value)  # says which instance


async def test_a_local_protocol_error_is_described_without_its_text() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.LocalProtocolError(f"Illegal header value b'{OAUTH}'")

    async with ApiClient(settings(OAUTH, auth="oauth"), transport=httpx.MockTransport(handler)) as api:
        with pytest.raises(LabdeckError) as caught:
            await api.get_json("/user")
        logged = " ".join(str(e) for e in api.request_log.entries)
    assert OAUTH not in str(caught.value) and OAUTH not in logged


async def test_an_empty_token_sends_no_auth_header() -> None:
    seen: list[httpx.Headers] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request.headers)
        return httpx.Response(200, json={})

    async with ApiClient(settings(""), transport=httpx.MockTransport(handler)) as api:
        await api.get_json("/version")
    assert "private-token" not in seen[0] and "authorization" not in seen[0]


def test_reprs_hide_the_token_and_a_password_in_the_url() -> None:
    config = ConnectionSettings(url="https://ops:hunter2@gitlab.example.com:8443", token=SecretStr(OAUTH))
    text = repr(config) + repr(ApiClient(config))
    assert OAUTH not in text and "hunter2" not in text and "gitlab.example.com:8443" in text


async def test_a_token_in_a_query_never_reaches_error_messages_or_the_log() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.sleep(1)
        return httpx.Response(200, json={})

    quick = settings(OAUTH, timeouts=Timeouts(deadline=0.05))
    async with ApiClient(quick, transport=httpx.MockTransport(handler)) as api:
        with pytest.raises(DeadlineExceeded) as caught:
            await api.get_json("/projects?private_token=hunter2secret")
        logged = " ".join(e.path for e in api.request_log.entries)
    assert "hunter2secret" not in str(caught.value) and "hunter2secret" not in logged
    assert "/projects" in str(caught.value)


class Exploding(httpx.AsyncBaseTransport):
    def __init__(self, error: Exception) -> None:
        self.error = error

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        raise self.error


@pytest.mark.parametrize("error", [
    RuntimeError("boom glpat-sandbox-root boom"),
    httpx.LocalProtocolError("Illegal header value b'glpat-sandbox-root'"),
    httpx.ConnectError("PRIVATE-TOKEN: glpat-sandbox-root"),
])
def test_labdeck_api_errors_are_one_line_without_the_token(error: Exception, monkeypatch: pytest.MonkeyPatch,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    fast_retry = RetryPolicy(max_attempts=2, base_delay=0.001, max_delay=0.001)
    quick = settings("glpat-sandbox-root", retry=fast_retry)
    monkeypatch.setattr(api_cli, "connection_settings", lambda args: quick)
    status = run_api_command(["--demo", "user"], transport=Exploding(error))
    out, err = capsys.readouterr()
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and err.startswith("labdeck api: ")
    assert "glpat-sandbox-root" not in err and "Traceback" not in err


async def test_a_worker_crash_with_an_oauth_token_in_scope_leaves_no_token(tmp_path: Path) -> None:
    from snapshot_apps import make_app

    config = ConnectionSettings(url="http://sandbox.test", token=SecretStr(OAUTH), auth="oauth", name="demo")
    app = make_app(settings=config, crash_dir=tmp_path)

    async def exploding() -> None:
        here = config  # a local that Textual's own crash screen would print
        token = here.token.get_secret_value() if here.token else ""
        raise RuntimeError(f"failed while holding {token}")

    with pytest.raises(RuntimeError):
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            app.run_worker(exploding())
            await pilot.pause(0.2)
    (report,) = files(tmp_path)
    text = report.read_text()
    assert "RuntimeError" in text and "exploding" in text
    assert OAUTH not in text and "here = " not in text.replace("here = config", "")


async def test_caller_credentials_never_follow_a_redirect_to_another_host() -> None:
    seen: dict[str, httpx.Headers] = {}

    def handler(request: httpx.Request) -> httpx.Response:
        seen[request.url.host] = request.headers
        if request.url.host == "gitlab.example.com":
            return httpx.Response(302, headers={"location": "https://elsewhere.example/x"})
        return httpx.Response(200, json={})

    async with ApiClient(settings(OAUTH, auth="oauth"), transport=httpx.MockTransport(handler)) as api:
        with pytest.raises(OffOriginRedirect, match=r"elsewhere\.example"):
            await api.request("GET", "/x", headers={"Authorization": "Bearer mine-0123456789",
                                                    "Cookie": "_gitlab_session=abc", "X-Trace": "1"})
    here = seen["gitlab.example.com"]
    assert here["authorization"] == f"Bearer {OAUTH}" and here["cookie"] == "_gitlab_session=abc"
    assert "elsewhere.example" not in seen  # nothing, not even a header-less request, went there
