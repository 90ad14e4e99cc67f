"""`VariablesService` against the sandbox: group and instance CRUD, scopes, checks before sending, and
masked values kept out of reprs."""

from __future__ import annotations

import pytest
from groups_sandbox import ALICE_TOKEN, Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api.errors import BadRequest, Conflict, Forbidden, NotFound
from labdeck.api.models.variables import HIDDEN
from labdeck.api.variables import Owner, VariableError, VariablesService

ACME: Owner = ("groups", "acme")


async def test_group_variables_crud_and_scopes(sandbox: Sandbox) -> None:
    service = VariablesService(sandbox.client())
    keys = {v.key for v in await service.variables(ACME)}
    assert keys == {"DEPLOY_TOKEN", "REGISTRY_MIRROR", "KUBECONFIG"}
    made = await service.create_variable(ACME, "SCOPED", "a", environment_scope="staging")
    assert (made.environment_scope, made.variable_type) == ("staging", "env_var")
    await service.create_variable(ACME, "SCOPED", "b", environment_scope="production", protected=True)
    assert {v.key for v in await service.variables(ACME)} == keys | {"SCOPED"}  # cache dropped
    with pytest.raises(Conflict):
        await service.variable(ACME, "SCOPED")
    staging = await service.variable(ACME, "SCOPED", environment_scope="staging")
    assert staging.value == "a"
    updated = await service.update_variable(ACME, "SCOPED", "c", environment_scope="staging",
                                                  variable_type="file")
    assert (updated.value, updated.variable_type) == ("c", "file")
    await service.delete_variable(ACME, "SCOPED", environment_scope="production")
    assert (await service.variable(ACME, "SCOPED")).environment_scope == "staging"


async def test_rules_are_checked_before_sending(sandbox: Sandbox) -> None:
    client = sandbox.client()
    service = VariablesService(client)
    with pytest.raises(VariableError) as bad_key:
        await service.create_variable(ACME, "NOT-OK", "x")
    assert bad_key.value.errors == {"key": ["can contain only letters, digits and '_'."]}
    with pytest.raises(VariableError) as masked:
        await service.create_variable(ACME, "M", "short", masked=True)
    assert masked.value.errors == {"value": ["is invalid"]}
    with pytest.raises(VariableError):
        await service.create_instance_variable("BIG", "x" * 10_001)
    with pytest.raises(VariableError):
        await service.create_variable(ACME, "T", "x", variable_type="blob")  # type: ignore[arg-type]
    assert len(client.request_log) == 0


async def test_instance_variables(sandbox: Sandbox) -> None:
    service = VariablesService(sandbox.client())
    listed = await service.instance_variables()
    assert {v.key for v in listed} == {"HTTP_PROXY", "SONAR_TOKEN"}
    assert all(v.environment_scope is None for v in listed)
    made = await service.create_instance_variable("GLOBAL", "x" * 10_000, masked=False)
    assert len(made.value or "") == 10_000
    assert (await service.update_instance_variable("GLOBAL", "y")).value == "y"
    assert (await service.instance_variable("GLOBAL")).value == "y"  # one variable, read again
    assert {v.key: v.value for v in await service.instance_variables()}["GLOBAL"] == "y"  # the cache dropped
    await service.delete_instance_variable("GLOBAL")
    assert "GLOBAL" not in {v.key for v in await service.instance_variables()}
    with pytest.raises(NotFound):
        await service.delete_instance_variable("GLOBAL")
    with pytest.raises(NotFound):
        await service.instance_variable("GLOBAL")
    sandbox.store.areas["ci_variables"].instance_limit = 2
    with pytest.raises(BadRequest, match="Maximum number"):
        await service.create_instance_variable("THIRD", "x")
    with pytest.raises(Forbidden):
        await VariablesService(sandbox.client(ALICE_TOKEN)).instance_variables()


async def test_masked_values_stay_hidden(sandbox: Sandbox) -> None:
    service = VariablesService(sandbox.client())
    token = await service.variable(ACME, "DEPLOY_TOKEN")
    assert token.masked and token.shown_value() == HIDDEN
    assert token.shown_value(revealed=True) == "s3cr3t-deploy-token-42"
    assert "s3cr3t" not in repr(token) and "s3cr3t" not in str(token)
    plain = await service.variable(ACME, "REGISTRY_MIRROR")
    assert plain.shown_value() == "https://mirror.acme.example"


async def test_raw_description_and_masked_and_hidden(sandbox: Sandbox) -> None:
    client = sandbox.client()
    service = VariablesService(client)
    with pytest.raises(VariableError) as long:
        await service.create_variable(ACME, "D", "x", description="d" * 256)
    assert long.value.errors == {"description": ["is too long (maximum is 255 characters)"]}
    with pytest.raises(VariableError):  # a hidden value must be maskable (`$` only when raw)
        await service.create_variable(ACME, "H", "abc$defgh", masked_and_hidden=True)
    made = await service.create_variable(ACME, "H", "abc$defgh", masked_and_hidden=True, raw=True,
                                               description="never again")
    assert (made.hidden, made.masked, made.raw, made.value, made.description) == (
        True, True, True, None, "never again")
    assert made.shown_value(revealed=True) != "abc$defgh"
    with pytest.raises(BadRequest) as locked:
        await service.update_variable(ACME, "H", "abc$defgh", masked=False, raw=True)
    assert "cannot be changed for masked and hidden" in str(locked.value.message)
    plain = await service.update_variable(ACME, "REGISTRY_MIRROR", "https://m.example", raw=True,
                                                description="mirror")
    assert (plain.raw, plain.description, plain.hidden) == (True, "mirror", False)
