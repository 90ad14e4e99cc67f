"""Group and instance CI/CD variables: CRUD, key rules, value limits, masking, scopes, the instance limit
(contract document 2)."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ROOT, as_sudo, call

GROUP = "/groups/acme/variables"
INSTANCE = "/admin/ci/variables"


async def test_group_variable_crud(client: httpx.AsyncClient) -> None:
    listed = (await call(client, "GET", GROUP, ROOT)).json()
    assert {v["key"] for v in listed} == {"DEPLOY_TOKEN", "REGISTRY_MIRROR", "KUBECONFIG"}
    assert {"variable_type", "key", "value", "protected", "masked", "environment_scope"} <= set(listed[0])
    made = await call(client, "POST", GROUP, ROOT, data={"key": "NEW_ONE", "value": "v"})
    assert made.status_code == 201
    expected = {
        "key": "NEW_ONE",
        "variable_type": "env_var",
        "protected": False,
        "masked": False,
        "environment_scope": "*",
        "value": "v",
    }
    assert {k: made.json()[k] for k in expected} == expected
    got = await call(client, "GET", f"{GROUP}/NEW_ONE", ROOT)
    assert got.json()["value"] == "v"
    updated = await call(
        client,
        "PUT",
        f"{GROUP}/NEW_ONE",
        ROOT,
        json={"value": "file body", "variable_type": "file", "protected": True},
    )
    assert (updated.json()["variable_type"], updated.json()["protected"]) == ("file", True)
    assert (await call(client, "DELETE", f"{GROUP}/NEW_ONE", ROOT)).status_code == 204
    gone = await call(client, "GET", f"{GROUP}/NEW_ONE", ROOT)
    assert (gone.status_code, gone.json()) == (404, {"message": "404 GroupVariable Not Found"})


async def test_group_variable_permissions(client: httpx.AsyncClient) -> None:
    assert (await call(client, "GET", GROUP, ALICE)).status_code == 403  # a developer
    assert (await as_sudo(client, "GET", GROUP, "frank")).status_code == 200  # a maintainer
    assert (await call(client, "GET", GROUP)).status_code == 401


async def test_key_rules(client: httpx.AsyncClient) -> None:
    bad = await call(client, "POST", GROUP, ROOT, json={"key": "has-dash", "value": "x"})
    assert (bad.status_code, bad.json()) == (
        400,
        {"message": {"key": ["can contain only letters, digits and '_'."]}},
    )
    long = await call(client, "POST", GROUP, ROOT, json={"key": "K" * 256, "value": "x"})
    assert long.json() == {"message": {"key": ["is too long (maximum is 255 characters)"]}}
    assert (await call(client, "POST", GROUP, ROOT, json={"key": "K" * 255, "value": "x"})).status_code == 201
    missing = await call(client, "POST", GROUP, ROOT, json={"key": "ONLY_KEY"})
    assert missing.json() == {"error": "value is missing"}
    taken = await call(client, "POST", GROUP, ROOT, json={"key": "DEPLOY_TOKEN", "value": "abcdefgh"})
    assert taken.json() == {"message": {"key": ["(DEPLOY_TOKEN) has already been taken"]}}
    kind = await call(client, "POST", GROUP, ROOT, json={"key": "T", "value": "x", "variable_type": "blob"})
    assert kind.json() == {"error": "variable_type does not have a valid value"}


async def test_masked_values_must_be_maskable(client: httpx.AsyncClient) -> None:
    short = await call(client, "POST", GROUP, ROOT, json={"key": "M", "value": "short", "masked": True})
    assert (short.status_code, short.json()) == (400, {"message": {"value": ["is invalid"]}})
    fine = await call(client, "POST", GROUP, ROOT, json={"key": "M", "value": "long-enough", "masked": True})
    assert fine.status_code == 201 and fine.json()["masked"] is True


async def test_environment_scopes(client: httpx.AsyncClient) -> None:
    for scope in ("staging", "production"):
        made = await call(
            client, "POST", GROUP, ROOT, json={"key": "SCOPED", "value": scope, "environment_scope": scope}
        )
        assert made.status_code == 201 and made.json()["environment_scope"] == scope
    ambiguous = await call(client, "GET", f"{GROUP}/SCOPED", ROOT)
    assert ambiguous.status_code == 409
    one = await call(client, "GET", f"{GROUP}/SCOPED", ROOT, params={"filter[environment_scope]": "staging"})
    assert one.json()["value"] == "staging"
    removed = await call(
        client, "DELETE", f"{GROUP}/SCOPED", ROOT, params={"filter[environment_scope]": "production"}
    )
    assert removed.status_code == 204
    assert (await call(client, "GET", f"{GROUP}/SCOPED", ROOT)).json()["environment_scope"] == "staging"


async def test_instance_variables_for_administrators(client: httpx.AsyncClient) -> None:
    assert (await call(client, "GET", INSTANCE, ALICE)).status_code == 403
    listed = (await call(client, "GET", INSTANCE, ROOT)).json()
    assert {v["key"] for v in listed} == {"HTTP_PROXY", "SONAR_TOKEN"}
    assert all("environment_scope" not in v for v in listed)
    made = await call(
        client,
        "POST",
        INSTANCE,
        ROOT,
        json={"key": "GLOBAL", "value": "x" * 10_000, "environment_scope": "ignored"},
    )
    assert made.status_code == 201 and "environment_scope" not in made.json()
    too_long = await call(client, "PUT", f"{INSTANCE}/GLOBAL", ROOT, json={"value": "x" * 10_001})
    assert too_long.json() == {
        "message": {"value": ["The value of the provided variable exceeds the 10000 character limit"]}
    }
    assert (await call(client, "PUT", f"{INSTANCE}/GLOBAL", ROOT, json={"value": "y"})).json()["value"] == "y"
    assert (await call(client, "DELETE", f"{INSTANCE}/GLOBAL", ROOT)).status_code == 204
    missing = await call(client, "GET", f"{INSTANCE}/GLOBAL", ROOT)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 InstanceVariable Not Found"})


async def test_instance_variable_limit_is_configurable(client: httpx.AsyncClient) -> None:
    limits = await call(
        client,
        "PUT",
        "/application/plan_limits",
        ROOT,
        data={"plan_name": "default", "ci_instance_level_variables": "3"},
    )
    assert limits.json()["ci_instance_level_variables"] == 3
    assert (
        await call(client, "POST", INSTANCE, ROOT, json={"key": "THIRD", "value": "x"})
    ).status_code == 201
    over = await call(client, "POST", INSTANCE, ROOT, json={"key": "FOURTH", "value": "x"})
    assert (over.status_code, over.json()) == (
        400,
        {"message": {"base": ["Maximum number of ci instance level variables (3) exceeded"]}},
    )
    assert (
        await call(
            client, "PUT", "/application/plan_limits", ALICE, data={"ci_instance_level_variables": "30"}
        )
    ).status_code == 403
