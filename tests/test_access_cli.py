"""`labdeck access members|variables|tokens` (issue 36) against the demo sandbox: the JSON fields the issue
lists, one object a line, the filters, the instance scope, usage errors, and a skipped project named on
stderr. No variable value reaches the output."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from labdeck.cli.access import MEMBER_FIELDS, TOKEN_FIELDS, VARIABLE_FIELDS, run_access_command
from labdeck.cli.main import main
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions


@pytest.fixture(scope="module")
def app() -> Any:
    return create_app(SandboxOptions(scale="demo"), clock=ManualClock())


def run(app: Any, capsys: pytest.CaptureFixture[str], *argv: str,
        transport: httpx.AsyncBaseTransport | None = None) -> tuple[int, list[dict[str, Any]], str]:
    status = run_access_command([*argv, "--demo"], transport=transport or httpx.ASGITransport(app),
                                now=app.state.store.now())
    out, err = capsys.readouterr()
    rows = [json.loads(line) for line in out.splitlines()] if "--json" in argv else []
    return status, rows, out + err


def test_members_json(app: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, rows, _ = run(app, capsys, "members", "fleet", "--json", "--level", "owner")
    assert status == 0 and rows
    assert all(tuple(row) == MEMBER_FIELDS for row in rows)
    core = sorted(r["user"] for r in rows if r["path"] == "fleet/core")
    assert core == ["alice", "bob", "erin", "frank"]  # carol is an Owner of fleet, said there
    assert {"user": "carol", "path": "fleet", "kind": "group", "access_level": 50, "level": "owner",
            "via": "direct", "expires_at": None} in rows
    _, soon, _ = run(app, capsys, "members", "fleet", "--json", "--expires-within", "7")
    assert [(r["user"], r["path"], r["level"]) for r in soon] == [("external.user", "fleet/web", "developer")]


def test_variables_json_holds_flags_never_a_value(app: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, rows, text = run(app, capsys, "variables", "fleet", "--json")
    assert status == 0
    assert all(tuple(row) == VARIABLE_FIELDS for row in rows)
    assert "fleet-deploy-token-0451" not in text and "edge-deploy-token-7719" not in text
    flagged = [r for r in rows if r["findings"]]
    assert next((r["key"], r["level"], r["path"], r["findings"]) for r in flagged) == \
        ("DEPLOY_TOKEN", "group", "fleet", ["secret_not_masked", "flags_differ"])
    _, only, _ = run(app, capsys, "variables", "fleet", "--json", "--findings")
    assert only == flagged and len(only) == 2


def test_tokens_json_and_filters(app: Any, capsys: pytest.CaptureFixture[str]) -> None:
    status, rows, _ = run(app, capsys, "tokens", "fleet", "--json")
    assert status == 0 and all(tuple(row) == TOKEN_FIELDS for row in rows)
    by_name = {r["name"]: r for r in rows}
    assert by_name["release-bot"]["days_left"] == 3 and by_name["release-bot"]["state"] == "active"
    assert by_name["nightly-export"]["state"] == "expired"
    assert by_name["metrics-push"]["days_left"] is None
    _, soon, _ = run(app, capsys, "tokens", "fleet", "--json", "--expiring")
    assert [r["name"] for r in soon] == ["release-bot"]
    _, unused, _ = run(app, capsys, "tokens", "fleet", "--json", "--unused-for", "150")
    assert [r["name"] for r in unused] == ["mirror-sync"]
    _, personal, _ = run(app, capsys, "tokens", "--instance", "--json", "--state", "expired")
    assert [(r["name"], r["kind"]) for r in personal] == [("old-laptop", "personal"),
                                                          ("nightly-export", "project")]
    assert personal[0]["owner"] == "@bob"
    _, never, _ = run(app, capsys, "tokens", "--instance", "--json", "--never-expires")
    assert "automation" in {r["name"] for r in never}
    assert all("token" not in r for r in personal + never)


def test_a_forbidden_project_is_named_on_stderr_and_the_review_goes_on(
        app: Any, capsys: pytest.CaptureFixture[str]) -> None:
    class Refusing(httpx.ASGITransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if request.url.path.endswith("/variables") and "/projects/fleet%2Fweb%2F" in str(request.url):
                return httpx.Response(403, json={"message": "403 Forbidden"})
            return await super().handle_async_request(request)

    status, rows, text = run(app, capsys, "variables", "fleet", "--json", transport=Refusing(app))
    assert status == 0 and any(r["key"] == "DEPLOY_TOKEN" for r in rows)
    assert "labdeck access: skipped fleet/web/" in text and "403 Forbidden" in text


def test_usage_errors(app: Any, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_access_command(["members", "--demo"]) == 2  # neither a scope nor --instance
    assert run_access_command(["members", "fleet", "--instance", "--demo"]) == 2
    assert run_access_command(["members", "fleet", "--level", "boss", "--demo"],
                              transport=httpx.ASGITransport(app)) == 2
    assert "see labdeck access members --help" in capsys.readouterr().err
    assert main(["access", "tokens", "--demo", "--server", "x", "--instance"]) == 2
