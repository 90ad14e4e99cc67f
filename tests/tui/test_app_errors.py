"""Error policy pieces: messages for API and network errors, token redaction, crash logs without locals."""

from __future__ import annotations

import stat
from pathlib import Path

from labdeck.api.errors import DeadlineExceeded, NotFound, error_for
from labdeck.tui.errors import describe_error, format_crash, redact, write_crash_log


def test_api_error_message_has_status_and_server_message() -> None:
    """The status once: GitLab's messages often start with it ("404 Project Not Found")."""
    error = error_for(404, b'{"message":"404 Project Not Found"}', "GET", "/projects/9")
    assert describe_error(error) == "404 Project Not Found"
    missing = error_for(400, b'{"message":"status is missing"}', "POST", "/projects/9/deployments")
    assert describe_error(missing) == "400: status is missing"
    assert describe_error(NotFound(404, "")) == "404 Not Found"


def test_network_error_and_unexpected_error_messages() -> None:
    assert describe_error(DeadlineExceeded("deadline of 120 s passed")).startswith("Network error: deadline")
    assert describe_error(KeyError("x")) == "Unexpected error: KeyError"


def test_redact_removes_token_like_strings() -> None:
    text = ("PRIVATE-TOKEN: glpat-abcdef1234567890 GET /projects?private_token=sekrit99&page=2 "
            "Authorization: Bearer abcdefghijklmnop https://user:hunter2@gitlab.example.com/x "
            "JOB-TOKEN=glcbt-zzzzzzzz")
    cleaned = redact(text)
    for secret in ("glpat-abcdef1234567890", "sekrit99", "abcdefghijklmnop", "hunter2", "glcbt-zzzzzzzz"):
        assert secret not in cleaned
    assert "page=2" in cleaned and "gitlab.example.com" in cleaned


def test_redact_removes_known_secret_values_anywhere() -> None:
    assert redact("the value is s3cr3t-v4lue here", ["s3cr3t-v4lue"]) == "the value is [redacted] here"


def _boom(token: str) -> None:
    local_secret = token  # a local variable: must never reach the report
    raise RuntimeError(f"failed with {local_secret}")


def test_crash_log_has_traceback_without_locals_and_redacted(tmp_path: Path) -> None:
    try:
        _boom("glpat-sandbox-root")
    except RuntimeError as error:
        path = write_crash_log(error, directory=tmp_path / "logs")
        text = format_crash(error)
    body = path.read_text()
    assert "Traceback" in body and "_boom" in body and "RuntimeError" in body
    assert "glpat-sandbox-root" not in body and "glpat-sandbox-root" not in text
    assert "local_secret =" not in body.replace("    local_secret = token", "")  # no locals dump
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_crash_log_dir_honours_override(tmp_path: Path, monkeypatch) -> None:
    from labdeck.tui.errors import crash_log_dir

    monkeypatch.setenv("LABDECK_STATE_DIR", str(tmp_path))
    assert crash_log_dir() == tmp_path
