"""`labdeck registry policy`: the cleanup policy's simulation, headless, against a tiny sandbox; the JSON is
what the sandbox's own run then deletes."""

from __future__ import annotations

import json
import re
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
    assert out.startswith("policy enabled: runs every 7d; keeps the 10 newest; deletes only tags older than "
                          "60d; remove regex: nightly-.*; keep regex: none")
    assert "matches no tag" in out and "total: next run deletes 0 tags" in out
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


def test_a_disabled_policy_deletes_nothing_and_says_what_it_would(app: Starlette,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 34: on acme/infra/terraform (disabled) the command said `no run is scheduled`, then `21 to
    delete`, rows marked `delete` and `name_regex_keep None`: words that read as tonight's run, and Python
    values."""
    assert run(app, "acme/infra/terraform") == 0
    out = capsys.readouterr().out
    assert not re.search(r"\b(None|True|False)\b|\[\]|'", out), out  # no Python values on screen
    assert "policy disabled: nothing is deleted. If it were enabled, a run would delete" in out
    rows = [line for line in out.splitlines() if line.startswith(("delete ", "would delete", "keep "))]
    assert rows and not any(line.startswith("delete ") for line in rows)
    assert any(line.startswith("would delete") for line in rows)
    assert "to delete" not in out  # nothing is to be deleted: a run would
    assert "keep regex: none" in out
    assert run(app, "acme/infra/terraform", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    decisions = {t["decision"] for r in data["repositories"] for t in r["tags"]}
    assert "delete" not in decisions and "would delete" in decisions


def test_the_reasons_say_which_rule_decided(app: Starlette, capsys: pytest.CaptureFixture[str]) -> None:
    """The Reason column said only `deleted`: now which rule kept or deleted each tag, in the words of the
    cleanup preview (`domain.cleanup_reasons`): keep_n 5, older than 30d, keep `v.+|stable`, a rule on
    pr-1x."""
    assert run(app, "acme/platform/api-gateway") == 0
    out = capsys.readouterr().out
    reasons = {re.split(r"\s{2,}", line)[-1] for line in out.splitlines()
               if line.startswith(("delete ", "keep "))}
    assert "older than 30d and past keep_n (5)" in reasons
    assert "kept by keep_n: among the 5 newest" in reasons
    assert "matches the keep regex" in reasons and "latest: never deleted" in reasons
    assert "protected by a tag protection rule" in reasons
    assert "deleted" not in reasons
    assert run(app, "acme/platform/api-gateway", "--json") == 0
    tags = [t for r in json.loads(capsys.readouterr().out)["repositories"] for t in r["tags"]]
    assert {t["why"] for t in tags} == reasons
