"""`labdeck api` never prints the token, whatever the answer's bytes (issue 32 item 10): a server (here a real
one, on the loopback) that echoes the request's `PRIVATE-TOKEN` header inside a body that is not valid UTF-8
had it written out as it was, since only text and JSON answers were redacted. The token is removed by value
from the bytes too, each other byte kept."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from labdeck.cli.api import run_api_command
from loopback import serve

TOKENS = ["glpat-EchoedSecret0123456789", "plain-words-legacy-token"]  # the second has no GitLab shape


async def echo_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """Answers every request with its PRIVATE-TOKEN header between bytes that are not UTF-8, under the
    content type the path names (`/octet`, `/text`, `/json`)."""
    if scope["type"] != "http":
        return
    token = dict(scope["headers"]).get(b"private-token", b"")
    kind = {"/api/v4/octet": b"application/octet-stream", "/api/v4/text": b"text/plain; charset=utf-8",
            "/api/v4/json": b"application/json"}.get(scope["path"], b"application/octet-stream")
    status = 500 if scope["path"] == "/api/v4/error" else 200
    body = b"\xff\xfe\x00echo: " + token + b" \x80\xc3(" + token[:8] + b"\xff"
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", kind), (b"content-length", str(len(body)).encode())]})
    await send({"type": "http.response.body", "body": body})


@pytest.fixture(scope="module")
def echo_server() -> Iterator[str]:
    with serve(echo_app) as url:
        yield url


@pytest.mark.parametrize("token", TOKENS)
@pytest.mark.parametrize("path", ["octet", "text", "json", "error"])
def test_an_echoed_token_in_bytes_that_are_not_utf8_is_not_printed(
        echo_server: str, token: str, path: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    monkeypatch.setenv("LABDECK_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("GITLAB_URL", echo_server)
    monkeypatch.setenv("GITLAB_TOKEN", token)
    for name in ("CI_SERVER_URL", "CI_JOB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    code = run_api_command([path])
    out, err = capsysbinary.readouterr()
    assert token.encode() not in out and token.encode() not in err, (code, out, err)
    if path in ("octet", "text"):  # written as bytes: the same bytes, the token replaced
        assert code == 0
        assert out == b"\xff\xfe\x00echo: [redacted] \x80\xc3(" + token[:8].encode() + b"\xff"
