"""Hostile bodies: HTML error pages with and without a title, an HTML page or NaN answered with 200, wrong
content types and truncated bodies. The service layer raises one typed error with the real status; `labdeck
api` exits 1 with one line; the request log marks a 2xx whose body could not be read."""

from __future__ import annotations

import json

import httpx
import pytest
from hostile_server import build_app, hostile_settings, html_answer, json_answer, raw_answer, start

from labdeck.api.client import ApiClient
from labdeck.api.errors import ApiError, MalformedResponse, NetworkError, ServerError

pytestmark = pytest.mark.timeout(60)
PHRASES = {502: "502 Bad Gateway", 503: "503 Service Unavailable", 504: "504 Gateway Timeout"}


def client_for(app: object) -> ApiClient:
    return ApiClient(hostile_settings(), transport=httpx.ASGITransport(app=app))


@pytest.mark.parametrize("status", [502, 503, 504])
@pytest.mark.parametrize("title", [None, "", "   ", "Maintenance <b>window</b>"])
async def test_html_error_pages_keep_their_status(status: int, title: str | None) -> None:
    app = build_app({"/projects": html_answer(status, title)})
    async with client_for(app) as client:
        with pytest.raises(ServerError) as caught:
            await client.get_json("/projects")
    error = caught.value
    assert error.status == status
    expected = PHRASES[status] if not (title or "").strip() else "Maintenance <b>window</b>"
    assert error.message == expected and "500" not in str(error)
    assert len(app.calls) == 3  # retried (idempotent GET, 5xx) and bounded
    (entry,) = client.request_log.entries
    assert entry.status == status and entry.error == expected


@pytest.mark.parametrize("status", [502, 503, 504])
def test_labdeck_api_reports_the_real_status_of_an_html_page(labdeck_api, status: int) -> None:
    app = build_app({"/projects": html_answer(status)})
    line = labdeck_api(["projects"], app, hostile_settings()).one_clear_line()
    assert line == f"labdeck api: {PHRASES[status]}"  # the status once


@pytest.mark.parametrize("content_type", ["text/html; charset=utf-8", "text/plain", None])
def test_labdeck_api_fails_on_a_200_html_page(labdeck_api, content_type: str | None) -> None:
    page = "<!doctype html><html><head><title>Sign in</title></head><body>SSO</body></html>"
    app = build_app({"/projects": raw_answer(page, content_type=content_type)})
    line = labdeck_api(["projects"], app, hostile_settings()).one_clear_line()
    assert "HTML page (Sign in), not JSON" in line and "GET /projects" in line


@pytest.mark.parametrize(("body", "paginate"), [('[{"id": NaN}]', False), ('{"size": Infinity}', False),
                                                ("[-Infinity]", False), ('[{"id": NaN}]', True),
                                                ('[{"n": -Infinity}]', True)])
def test_labdeck_api_fails_on_nan_and_infinity(labdeck_api, body: str, paginate: bool) -> None:
    app = build_app({"/projects": raw_answer(body)})
    argv = ["projects", "--paginate"] if paginate else ["projects"]
    line = labdeck_api(argv, app, hostile_settings()).one_clear_line()
    assert "NaN or Infinity" in line


@pytest.mark.parametrize("body", [b'[{"id": 1}, {"id"', b'{"id": 1', b"\xff\xfe[", b"<html>oops"])
async def test_an_unreadable_2xx_is_an_error_and_marked_in_the_request_log(body: bytes) -> None:
    app = build_app({"/projects": raw_answer(body), "/projects/1": raw_answer(body)})
    async with client_for(app) as client:
        with pytest.raises(MalformedResponse):
            await client.get_json("/projects/1")
        with pytest.raises(MalformedResponse):
            await client.fetch_all("/projects")
    entries = client.request_log.entries
    assert [e.status for e in entries] == [200, 200]
    assert all(e.error and "not JSON" in e.error for e in entries)  # `:log` shows them red, not as success


def test_labdeck_api_fails_on_a_truncated_json_body(labdeck_api) -> None:
    app = build_app({"/projects": raw_answer(b'[{"id": 1}, {"na')})
    line = labdeck_api(["projects"], app, hostile_settings()).one_clear_line()
    assert "not JSON" in line


@pytest.mark.parametrize("content_type", ["text/html", "application/octet-stream", "text/plain"])
async def test_a_json_body_with_a_wrong_content_type_is_still_read(content_type: str) -> None:
    app = build_app({"/projects": raw_answer('[{"id": 7}]', content_type=content_type)})
    async with client_for(app) as client:
        assert await client.get_json("/projects") == [{"id": 7}]


@pytest.mark.parametrize("body", ['{"id": 1}', "null", '"text"', "42"])
async def test_a_list_endpoint_that_answers_something_else(body: str) -> None:
    app = build_app({"/projects": raw_answer(body)})
    async with client_for(app) as client:
        with pytest.raises(MalformedResponse, match="expected a JSON array"):
            await client.fetch_all("/projects")
    assert client.request_log.entries[-1].error


@pytest.mark.slow
async def test_a_body_cut_short_on_a_real_socket_is_a_network_error() -> None:
    app = build_app({"/projects": raw_answer(b'[{"id": 1}]', declared_length=5000)})
    with start(app) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            with pytest.raises(NetworkError):
                await client.get_json("/projects")
    assert len(app.calls) == 3  # an idempotent GET is retried, then given up
    entry = client.request_log.entries[-1]
    assert entry.status is None and entry.error


def test_labdeck_api_on_a_real_socket_with_a_cut_body(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    import labdeck.cli.api as api_cli

    app = build_app({"/projects": raw_answer(b'[{"id": 1}]', declared_length=5000),
                     "/user": json_answer({"id": 1, "username": "root"})})
    with start(app) as base:
        monkeypatch.setattr(api_cli, "connection_settings", lambda args: hostile_settings(url=base))
        assert api_cli.run_api_command(["user"]) == 0
        assert json.loads(capsys.readouterr().out) == {"id": 1, "username": "root"}
        assert api_cli.run_api_command(["projects"]) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "Traceback" not in err
        # the error names the URL
        assert err.startswith(f"labdeck api: GET {base}/api/v4/projects: RemoteProtocolError")


def test_api_errors_are_typed(labdeck_api) -> None:
    app = build_app({"/projects": json_answer({"message": {"name": ["is too long"]}}, 400)})
    assert labdeck_api(["projects"], app, hostile_settings()).one_clear_line() == \
        "labdeck api: 400: name is too long"
    assert issubclass(ServerError, ApiError)
