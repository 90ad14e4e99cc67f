"""`VariablesService` on project-level variables against the sandbox: CRUD through the owner, scopes and
the filter, checks before sending, the undo journal (an unmasked deletion undone in this run, a masked or
hidden one never), and no value of a project variable on disk (persisted list cache, journal file)."""

from __future__ import annotations

import httpx
import pytest
from sandbox_clients import ROOT_TOKEN, sandbox_settings

from labdeck.api.cache import ListCache
from labdeck.api.client import ApiClient
from labdeck.api.errors import Conflict, Forbidden, NotFound
from labdeck.api.journal import Journal, UndoService
from labdeck.api.variables import VariableError, VariablesService
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

GATEWAY = ("projects", "acme/platform/api-gateway")


def _client(app: object, tmp_path: object = None, **kwargs: object) -> ApiClient:
    return ApiClient(sandbox_settings(**kwargs), transport=httpx.ASGITransport(app))  # type: ignore[arg-type]


async def test_crud_and_scopes_through_the_owner() -> None:
    app = create_app(SandboxOptions(scale="tiny"))
    async with _client(app) as client:
        service = VariablesService(client)
        seeded = await service.variables(GATEWAY)
        assert {v.key for v in seeded} >= {"DATABASE_URL", "DB_PASSWORD", "PROD_DB_PASSWORD", "LOG_FORMAT"}
        assert next(v for v in seeded if v.key == "PROD_DB_PASSWORD").hidden
        by_id = await service.variables(("projects", 1))
        assert [v.key for v in by_id] == [v.key for v in seeded]
        with pytest.raises(Conflict):  # two scopes share the key: GitLab asks for the filter
            await service.variable(GATEWAY, "DATABASE_URL")
        staging = await service.variable(GATEWAY, "DATABASE_URL", environment_scope="staging")
        assert "staging" in (staging.value or "")
        made = await service.create_variable(GATEWAY, "NEW_ONE", "v", environment_scope="review/*",
                                             description="made by a test", raw=True)
        assert (made.environment_scope, made.raw, made.description) == ("review/*", True, "made by a test")
        assert "NEW_ONE" in {v.key for v in await service.variables(GATEWAY)}  # the cached list was dropped
        updated = await service.update_variable(GATEWAY, "NEW_ONE", "w", environment_scope="review/*",
                                                new_environment_scope="production", protected=True)
        assert (updated.value, updated.environment_scope, updated.protected) == ("w", "production", True)
        await service.delete_variable(GATEWAY, "NEW_ONE", environment_scope="production")
        with pytest.raises(NotFound) as gone:
            await service.variable(GATEWAY, "NEW_ONE")
        assert gone.value.message == "404 Variable Not Found"
        hidden = await service.create_variable(GATEWAY, "HIDDEN_ONE", "h1dden-value-1",
                                               masked_and_hidden=True)
        assert hidden.hidden and hidden.value is None


async def test_rules_are_checked_before_sending_and_developers_are_refused() -> None:
    app = create_app(SandboxOptions(scale="tiny"))
    async with _client(app) as client, _client(app, token="glpat-sandbox-alice") as alice:
        service = VariablesService(client)
        with pytest.raises(VariableError) as bad:
            await service.create_variable(GATEWAY, "NOT-OK", "x")
        assert bad.value.errors == {"key": ["can contain only letters, digits and '_'."]}
        with pytest.raises(VariableError):
            await service.create_variable(GATEWAY, "D", "x", description="d" * 256)
        assert len(client.request_log) == 0
        with pytest.raises(Forbidden):
            await VariablesService(alice).variables(GATEWAY)


async def test_journal_and_cache_keep_no_value_on_disk(tmp_path: object) -> None:
    from pathlib import Path

    folder = Path(str(tmp_path))
    app = create_app(SandboxOptions(scale="tiny"))
    cache = ListCache(persist_path=folder / "cache.sqlite")
    client = ApiClient(sandbox_settings(), transport=httpx.ASGITransport(app), cache=cache)
    client.journal = Journal(folder / "journal.jsonl")
    try:
        service = VariablesService(client)
        listed = await service.variables(GATEWAY)
        secrets = {v.value for v in listed if v.value} | {"pr0d-db-never-shown-again"}
        plain = next(v for v in listed if v.key == "DATABASE_URL" and v.environment_scope == "staging")
        masked = next(v for v in listed if v.key == "DB_PASSWORD")
        await service.delete_variable(GATEWAY, plain.key, environment_scope="staging")
        await service.delete_variable(GATEWAY, masked.key, environment_scope="staging")
        undo = UndoService(client, client.journal)
        entries = client.journal.entries()
        deletion, masked_deletion = entries[-2], entries[-1]
        assert "masked or hidden" in (undo.refusal(masked_deletion) or "")
        await undo.undo(deletion)  # an unmasked deletion comes back, value and scope, in this run
        back = await service.variable(GATEWAY, "DATABASE_URL", environment_scope="staging")
        assert back.value == plain.value
        await service.variables(GATEWAY, refresh=True)  # listed again after the changes
        await client.get_list("/projects")  # something that is persisted, to show the file is written
        await cache.flush()
        on_disk = (folder / "cache.sqlite").read_bytes().decode("latin-1")
        assert "/projects" in on_disk
        journal = (folder / "journal.jsonl").read_text()
        for secret in (*secrets, ROOT_TOKEN):
            assert secret not in on_disk and secret not in journal
        # after a restart the value is gone from memory: the deletion cannot be undone any more
        reread = Journal(folder / "journal.jsonl")
        again = next(e for e in reread.entries() if e.id == deletion.id)
        assert UndoService(client, reread).refusal(again) in (
            "it was undone already", "the variable's value was not kept after labdeck closed")
    finally:
        await client.aclose()
        cache.close()
