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
    why = {t["name"]: t["why"] for t in out["tags"]}
    assert why["pr-1"] == "older than 30d" and why["pr-2"] == "newer than older_than (30d)"
    assert why["v2.0.0"] == "does not match the delete regex"
    assert out["deleted_count"] == 2 and out["bytes_freed"] == 5_000_000 and out["cutoff"] is not None
    assert out["counts"]["not matched"] == 2


def test_text_plan(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    transport, repo = sandbox
    status = run_registry_command(["plan", str(repo.project_id), str(repo.id), "--delete", ".*",
                                   "--keep-n", "1", "--demo"], transport=transport)
    assert status == 0
    out = capsys.readouterr().out
    assert "6 tags: 4 to delete, 2 kept; frees 14.0 MB (blobs no kept tag uses)" in out
    assert "kept by keep_n: among the 1 newest" in out


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


# --- repositories by path, ids shown, another project's repository refused (issue 34) ---------------------

def test_list_prints_each_repository_with_its_path_and_id(sandbox: Sandbox,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """`plan` took a repository id that no screen showed: `registry list` prints the path and id of each,
    with its size (unique blobs, named as such)."""
    transport, repo = sandbox
    assert run_registry_command(["list", "acme/platform/api-gateway", "--demo", "--no-cache"],
                                transport=transport) == 0
    out = capsys.readouterr().out
    head, *rows = out.splitlines()
    assert head.split()[:3] == ["ID", "PATH", "TAGS"] and "SIZE (UNIQUE BLOBS)" in head
    listed = {row.split()[1]: row.split()[0] for row in rows if row.strip() and row.split()[0].isdigit()}
    assert listed["acme/platform/api-gateway/cli"] == str(repo.id)
    assert len(listed) == 4  # the root image, worker, ci/cache and the test's
    assert run_registry_command(["list", "acme/platform/api-gateway", "--json", "--demo", "--no-cache"],
                                transport=transport) == 0
    entries = json.loads(capsys.readouterr().out)["repositories"]
    cli = next(e for e in entries if e["id"] == repo.id)
    assert cli["path"] == "acme/platform/api-gateway/cli" and cli["tags_count"] == 6
    assert cli["size"]["bytes"] == 1_000_000 + 2_000_000 + 3_000_000 + 4_000_000 + 5_000_000


def test_plan_takes_the_repository_by_its_path(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    """`group/project/image` (the repository's location), or the project and `--repository NAME`, plan the
    same repository as its numeric id (still accepted)."""
    transport, repo = sandbox
    rules = ["--delete", "pr-.*|v1.*", "--older-than", "30d", "--json", "--demo", "--no-cache"]
    outputs = []
    for target in (["acme/platform/api-gateway/cli"], ["acme/platform/api-gateway", "--repository", "cli"],
                   ["acme/platform/api-gateway", str(repo.id)], [str(repo.project_id), str(repo.id)]):
        assert run_registry_command(["plan", *target, *rules], transport=transport) == 0, target
        out = json.loads(capsys.readouterr().out)
        assert out["repository_id"] == repo.id and out["repository_path"] == "acme/platform/api-gateway/cli"
        outputs.append({k: v for k, v in out.items() if k not in ("project", "now", "cutoff")})
    assert all(found == outputs[0] for found in outputs)
    # the root image is the project's own path
    assert run_registry_command(["plan", "acme/platform/api-gateway", *rules], transport=transport) == 0
    assert json.loads(capsys.readouterr().out)["repository_path"] == "acme/platform/api-gateway"


def test_plan_refuses_a_repository_of_another_project(sandbox: Sandbox,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    transport, _ = sandbox
    app = transport.app  # type: ignore[attr-defined]
    store = app.state.store
    from labdeck.sandbox.seed.registry import registry_data

    vault = store.project_by_path("acme/security/vault")
    other = registry_data(store).of_projects({vault.id})[0]
    status = run_registry_command(["plan", "acme/platform/api-gateway", str(other.id), "--delete", ".*",
                                   "--demo", "--no-cache"], transport=transport)
    assert status == 1
    err = capsys.readouterr().err.strip()
    assert err == (f"labdeck registry: repository {other.id} is acme/security/vault's "
                   "(acme/security/vault), not acme/platform/api-gateway's")
    status = run_registry_command(["plan", "acme/platform/api-gateway", "--repository", "nosuch", "--delete",
                                   ".*", "--demo", "--no-cache"], transport=transport)
    assert status == 1
    err = capsys.readouterr().err.strip()
    assert "acme/platform/api-gateway has no repository named 'nosuch'" in err
    assert "acme/platform/api-gateway/worker" in err  # the names it has


def test_plan_help_names_the_forms() -> None:
    from labdeck.cli.registry import build_parser

    plan = build_parser()._subparsers._group_actions[0].choices["plan"]  # type: ignore[union-attr]
    text = plan.format_help()
    assert "group/project/image" in text and "--repository" in text and "registry list" in text


def test_plan_reasons_say_which_rule_decided(sandbox: Sandbox, capsys: pytest.CaptureFixture[str]) -> None:
    """The preview's reasons in words, the TUI's wording (`domain.cleanup_reasons`)."""
    transport, _ = sandbox
    assert run_registry_command(["plan", "acme/platform/api-gateway/cli", "--delete", "pr-.*|v.*|old",
                                 "--keep", "v2.*", "--keep-n", "1", "--older-than", "30d", "--demo",
                                 "--no-cache"], transport=transport) == 0
    out = capsys.readouterr().out
    why = {line.split()[1]: line for line in out.splitlines()[1:-1]}
    assert why["latest"].endswith("latest: never deleted")
    assert why["v2.0.0"].endswith("matches the keep regex")
    assert why["pr-2"].endswith("kept by keep_n: among the 1 newest")
    assert why["old"].endswith("older than 30d and past keep_n (1)")
    assert "frees" in out.splitlines()[-1] and "blobs no kept tag uses" in out.splitlines()[-1]


@pytest.mark.parametrize("command", ["plan", "policy"])
def test_a_project_given_with_a_wide_digit_is_a_path(sandbox: Sandbox, capsys: pytest.CaptureFixture[str],
                                                    command: str) -> None:
    """Issue 32 item 9: `²` passed `str.isdigit` and `int("²")` ended the command with "unexpected error:
    ValueError"; it is a project path, and both commands read the project: 404 (`plan` checks that the
    repository is the project's, issue 34, where it used to read the repository by its id alone)."""
    transport, _ = sandbox
    args = ["plan", "²", "1", "--delete", ".*"] if command == "plan" else ["policy", "²"]
    status = run_registry_command([*args, "--demo"], transport=transport)
    err = capsys.readouterr().err
    assert "unexpected error" not in err and "ValueError" not in err, err
    assert (status, "404" in err) == (1, True), err
