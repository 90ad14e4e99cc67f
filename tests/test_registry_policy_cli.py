"""`labdeck registry policy`: the cleanup policy's simulation, headless, against a tiny sandbox; the JSON is
what the sandbox's own run then deletes."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
import pytest
from starlette.applications import Starlette

from labdeck.cli.registry import run_registry_command
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.routes.cleanup_policy import run_due
from labdeck.sandbox.seed.cleanup_policy import policy_data


@pytest.fixture
def app() -> Starlette:
    """On the wall clock (the CLI's), with the gateway's policy due now."""
    made = create_app(SandboxOptions(scale="tiny"))
    store = made.state.store
    data = policy_data(store)
    gateway = store.project_by_path("acme/platform/api-gateway")
    data.policies[gateway.id] = replace(data.policies[gateway.id], next_run_at=store.now())
    return made


def run(app: Starlette, *args: str) -> int:
    return run_registry_command(["policy", *args, "--demo", "--no-cache"],
                                transport=httpx.ASGITransport(app))


def test_json_simulation_is_what_the_run_deletes(app: Starlette, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(app, "acme/platform/api-gateway", "--json") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["policy"]["enabled"] is True and out["policy"]["keep_n"] == 5
    assert out["max_list_size"] == 200 and out["protected_patterns"] == ["pr-1[0-4]"]
    assert out["schedule"]["runs"] == 1 and out["schedule"]["first_run_at"] >= out["policy"]["next_run_at"]
    said = {r["id"]: {t["name"] for t in r["tags"] if t["decision"] == "delete"} for r in out["repositories"]}
    assert out["deleted_count"] == sum(map(len, said.values())) > 0
    reasons = {t["reason"] for r in out["repositories"] for t in r["tags"]}
    assert {"latest", "keep pattern", "among the 5 newest", "deleted"} <= reasons
    # the policy is due: the sandbox runs it now, as its clock endpoint would
    gateway = app.state.store.project_by_path("acme/platform/api-gateway").id
    ran = {e["repository_id"]: {n for run in e["runs"] for n in run} for e in run_due(app.state.store)
           if e["project_id"] == gateway}
    assert ran == said


def test_text_simulation_says_why(app: Starlette, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(app, "acme/platform/web-portal") == 0
    out = capsys.readouterr().out
    assert out.startswith("policy: enabled, every 7d, keep_n 10, older_than 60d, name_regex 'nightly-.*'")
    assert "matches no tag" in out and "total: 0 tags to delete" in out
    assert run(app, "acme/infra/terraform") == 0
    assert "The policy is disabled" in capsys.readouterr().out


def test_api_errors_are_one_line(app: Starlette, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(app, "no/such-project") == 1
    assert capsys.readouterr().err.strip() == "labdeck registry: 404 Project Not Found"


def test_gitlab_registry_mode_has_no_count_limit(app: Starlette, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(app, "acme/security/vault", "--json", "--gitlab-registry") == 0
    out = json.loads(capsys.readouterr().out)
    assert out["max_list_size"] == 0 and "time" in out["max_list_size_source"]
    builds = next(r for r in out["repositories"] if r["name"] == "builds")
    assert builds["truncated"] is False and builds["runs"] == 1
    assert run(app, "acme/security/vault", "--json") == 0
    plain = json.loads(capsys.readouterr().out)
    assert next(r for r in plain["repositories"] if r["name"] == "builds")["truncated"] is True
