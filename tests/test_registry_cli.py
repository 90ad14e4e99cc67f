"""`labdeck registry plan`: the headless preview against a sandbox with known tags."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest

from labdeck.cli.registry import run_registry_command
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import Repository, Tag, add_repository


def known(days: int, name: str, digest: str, size: int) -> Tag:
    return Tag(name, datetime.now(UTC) - timedelta(days=days), f"sha256:{digest * 64}", digest * 64, size)


@pytest.fixture
def sandbox() -> tuple[httpx.ASGITransport, Repository]:
    app = create_app(SandboxOptions(scale="tiny"))
    store = app.state.store
    project = store.project_by_path("acme/platform/api-gateway")
    repo = add_repository(store, project, "cli", [
        known(1, "latest", "a", 1_000_000), known(1, "v2.0.0", "a", 1_000_000),
        known(60, "v1.0.0", "b", 2_000_000), known(90, "pr-1", "c", 3_000_000),
        known(5, "pr-2", "d", 4_000_000), known(100, "old", "e", 5_000_000),
    ])
    return httpx.ASGITransport(app), repo


Sandbox = tuple[httpx.ASGITransport, Repository]


def test_json_plan(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    transport, repo = sandbox
    status = run_registry_command(["plan", "acme/platform/api-gateway", str(repo.id), "--delete",
                                   "pr-.*|v1.*", "--older-than", "30d", "--json", "--demo"],
                                  transport=transport)
    assert status == 0
    out = json.loads(capsys.readouterr().out)
    reasons = {t["name"]: t["reason"] for t in out["tags"]}
    assert reasons["pr-1"] == "matched" and reasons["pr-2"] == "too new" and reasons["latest"] == "latest"
    assert out["deleted_count"] == 2 and out["bytes_freed"] == 5_000_000 and out["cutoff"] is not None
    assert out["counts"]["not matched"] == 2


def test_text_plan(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    transport, repo = sandbox
    status = run_registry_command(["plan", str(repo.project_id), str(repo.id), "--delete", ".*",
                                   "--keep-n", "1", "--demo"], transport=transport)
    assert status == 0
    out = capsys.readouterr().out
    assert "6 tags: 4 to delete, 2 kept; frees 14.0 MB" in out
    assert "among the 1 newest" in out


def test_invalid_rules_fail_before_any_request(capsys: pytest.CaptureFixture[str]) -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request expected")

    status = run_registry_command(["plan", "1", "1", "--delete", "(x", "--keep-n", "-1", "--demo"],
                                  transport=httpx.MockTransport(refuse))
    assert status == 2
    err = capsys.readouterr().err
    assert "invalid RE2 regular expression: missing ): (x" in err and "keep_n must not be negative" in err


def test_api_errors_are_one_line(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    transport, _ = sandbox
    status = run_registry_command(["plan", "acme/platform/api-gateway", "99999", "--delete", ".*", "--demo"],
                                  transport=transport)
    assert status == 1
    assert capsys.readouterr().err.strip() == "labdeck registry: 404 Not found"


def test_usage_errors() -> None:
    assert run_registry_command(["plan", "1"]) == 2
    assert run_registry_command(["plan", "1", "2", "--delete", ".*", "--demo", "--instance", "x"]) == 2


def test_plan_errors_point_to_the_plan_help(capsys: pytest.CaptureFixture[str]) -> None:
    """Bad rules and a missing argument of `registry plan` send the reader to `registry plan --help`, whose
    text explains them (not the bare `labdeck registry --help`)."""
    assert run_registry_command(["plan", "1", "1", "--delete", "(x", "--demo"]) == 2
    assert run_registry_command(["plan", "1"]) == 2
    assert run_registry_command(["plan", "1", "2", "--delete", ".*", "--demo", "--instance", "x"]) == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3
    assert all(line.endswith("(see labdeck registry plan --help)") for line in lines), lines
    assert run_registry_command(["nosuch"]) == 2  # the command itself is wrong: the whole command's help
    assert capsys.readouterr().err.strip().endswith("(see labdeck registry --help)")


def test_plan_lists_tags_in_the_tui_preview_order(sandbox: Sandbox,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Text and JSON list the tags as the TUI's preview does: deletions first, then kept tags, each part
    newest first (`domain.registry_cleanup.preview_order`), not by name."""
    transport, repo = sandbox
    args = ["plan", str(repo.project_id), str(repo.id), "--delete", "pr-.*|old|v1.*", "--demo"]
    assert run_registry_command([*args, "--json"], transport=transport) == 0
    names = [t["name"] for t in json.loads(capsys.readouterr().out)["tags"]]
    assert names[:4] == ["pr-2", "v1.0.0", "pr-1", "old"]  # deleted, newest first
    assert set(names[4:]) == {"latest", "v2.0.0"}  # kept (both a day old)
    assert run_registry_command(args, transport=transport) == 0
    rows = [line.split()[1] for line in capsys.readouterr().out.splitlines()[1:-1]]
    assert rows == names


@pytest.mark.parametrize("command", ["plan", "policy"])
def test_a_project_given_with_a_wide_digit_is_a_path(sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
                                                    command: str) -> None:
    """Issue 32 item 9: `²` passed `str.isdigit` and `int("²")` ended the command with "unexpected error:
    ValueError"; it is a project path (`policy` reads the project: 404; `plan` reads the repository by
    its id through GraphQL, which does not need the project)."""
    transport, _ = sandbox
    args = ["plan", "²", "1", "--delete", ".*"] if command == "plan" else ["policy", "²"]
    status = run_registry_command([*args, "--demo"], transport=transport)
    err = capsys.readouterr().err
    assert "unexpected error" not in err and "ValueError" not in err, err
    assert (status, "404" in err) == ((1, True) if command == "policy" else (0, False)), err
