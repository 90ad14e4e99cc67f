"""Group and instance CI/CD variables: CRUD, key rules, value limits, masking, scopes, the instance limit
(GitLab's API docs)."""

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


# --- raw, description, hidden (GitLab 16.2 / 17.4; `Ci::HidableVariable`, `Entities::Ci::Variable`) -------

PLATFORM = "/groups/acme%2Fplatform/variables"


async def test_hidden_variable_value_is_never_sent(client: httpx.AsyncClient) -> None:
    listed = {v["key"]: v for v in (await call(client, "GET", PLATFORM, ROOT)).json()}
    hidden = listed["SIGNING_KEY"]
    assert (hidden["hidden"], hidden["masked"], hidden["value"]) == (True, True, None)
    one = (await call(client, "GET", f"{PLATFORM}/SIGNING_KEY", ROOT)).json()
    assert one["value"] is None and one["hidden"] is True
    raw = listed["DOLLAR_TEMPLATE"]
    assert (raw["raw"], raw["hidden"], raw["value"]) == (True, False, "echo $CI_COMMIT_SHA verbatim")


async def test_masked_and_hidden_on_create_only(client: httpx.AsyncClient) -> None:
    made = await call(client, "POST", GROUP, ROOT, json={"key": "SECRET_NEW", "value": "abcdefgh12",
                                                        "masked_and_hidden": True})
    assert made.status_code == 201
    assert (made.json()["masked"], made.json()["hidden"], made.json()["value"]) == (True, True, None)
    # on update the parameter is not declared: ignored, the variable stays visible
    plain = await call(client, "POST", GROUP, ROOT, json={"key": "PLAIN_NEW", "value": "abcdefgh12"})
    updated = await call(client, "PUT", f"{GROUP}/PLAIN_NEW", ROOT,
                         json={"value": "abcdefgh12", "masked_and_hidden": True})
    assert plain.status_code == 201 and updated.status_code == 200
    assert (updated.json()["hidden"], updated.json()["value"]) == (False, "abcdefgh12")
    # a hidden variable's masking cannot change
    unmask = await call(client, "PUT", f"{GROUP}/SECRET_NEW", ROOT, json={"value": "abcdefgh12",
                                                                         "masked": False})
    assert (unmask.status_code, unmask.json()) == (400, {"message": {"base": [
        "The visibility setting cannot be changed for masked and hidden variables."]}})
    # a hidden value must meet the masking rules
    short = await call(client, "POST", GROUP, ROOT, json={"key": "SHORT", "value": "abc",
                                                         "masked_and_hidden": True})
    assert (short.status_code, short.json()) == (400, {"message": {"value": ["is invalid"]}})


async def test_raw_loosens_masking_and_description_limit(client: httpx.AsyncClient) -> None:
    refused = await call(client, "POST", GROUP, ROOT, json={"key": "DOLLAR", "value": "pa$$word!",
                                                           "masked": True})
    assert (refused.status_code, refused.json()) == (400, {"message": {"value": ["is invalid"]}})
    raw = await call(client, "POST", GROUP, ROOT, json={"key": "DOLLAR", "value": "pa$$word!", "masked": True,
                                                       "raw": True, "description": "d" * 255})
    assert raw.status_code == 201 and raw.json()["raw"] is True and raw.json()["description"] == "d" * 255
    long = await call(client, "PUT", f"{GROUP}/DOLLAR", ROOT, json={"value": "pa$$word!",
                                                                   "description": "d" * 256})
    assert (long.status_code, long.json()) == (400, {"message": {"description": [
        "is too long (maximum is 255 characters)"]}})
    expanded = await call(client, "PUT", f"{GROUP}/DOLLAR", ROOT, json={"value": "pa$$word!", "raw": False})
    assert expanded.status_code == 400  # masked and no longer raw: `$` is not allowed any more


async def test_instance_variables_have_raw_and_no_hidden(client: httpx.AsyncClient) -> None:
    listed = (await call(client, "GET", INSTANCE, ROOT)).json()
    assert all("hidden" not in v and "raw" in v and "environment_scope" not in v for v in listed)
    made = await call(client, "POST", INSTANCE, ROOT, json={"key": "RAW_ONE", "value": "$HOME", "raw": True,
                                                           "masked_and_hidden": True})
    assert made.status_code == 201 and made.json()["raw"] is True and made.json()["value"] == "$HOME"
