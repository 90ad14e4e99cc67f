"""The cleanup policy panel's words (`screens/registry/policy.py`, issue 34): the Reason column says which
rule decided each tag (it said only `deleted`), in the wording of the bulk cleanup preview
(`domain.cleanup_reasons`), and a disabled policy's preview says nothing is deleted and marks its rows
`would delete`, never `delete`."""

from __future__ import annotations

import httpx
from pydantic import SecretStr

from labdeck.api.cleanup_policy import CleanupPolicyService
from labdeck.api.client import ApiClient
from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.tui.screens.registry.policy import rows_of, summary_text


async def simulate(project: str):  # type: ignore[no-untyped-def]
    settings = ConnectionSettings(url="http://sandbox.test", token=SecretStr("glpat-sandbox-root"))
    transport = httpx.ASGITransport(create_app(SandboxOptions(scale="tiny")))
    async with ApiClient(settings, transport=transport) as client:
        return await CleanupPolicyService(client).simulate(project)


async def test_each_row_says_which_rule_decided() -> None:
    sim = await simulate("acme/platform/api-gateway")  # keep_n 5, older than 30d, keep v.+|stable
    rows = rows_of(sim)
    why = {row.why for row in rows}
    assert "deleted" not in why
    assert {row.why for row in rows if row.deleted} == {"older than 30d and past keep_n (5)"}
    assert {"kept by keep_n: among the 5 newest", "matches the keep regex", "latest: never deleted",
            "protected by a tag protection rule"} <= why
    assert {row.verdict for row in rows} == {"delete", "keep"}
    assert summary_text(sim).plain.startswith("enabled: next run deletes")


async def test_a_disabled_policy_deletes_nothing_and_says_what_it_would() -> None:
    sim = await simulate("acme/infra/terraform")
    rows = rows_of(sim)
    assert {row.verdict for row in rows if row.deleted} == {"would delete"}
    summary = summary_text(sim).plain
    assert summary.startswith("policy disabled: nothing is deleted. If it were enabled, a run would delete "
                              f"{sim.deleted_count} tags")
    assert "next run deletes" not in summary
