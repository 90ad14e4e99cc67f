"""Project-level CI/CD variables over HTTP, as GitLab answers them (`lib/api/ci/variables.rb`,
doc/api/project_level_variables.md): CRUD, the entity's fields, `filter[environment_scope]` on GET, PUT and
DELETE with the 409 when several scopes share a key, `(KEY) has already been taken`, 404 `Variable Not
Found`, the masking, hidden and description rules, and who may see them (401, 404, 403)."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from groups_fixtures import ALICE, ROOT, as_sudo, call

from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "/projects/" + quote("acme/platform/api-gateway", safe="") + "/variables"
AMBIGUOUS = "There are multiple variables with provided parameters. Please use 'filter[environment_scope]'"
ENTITY = {"variable_type", "key", "value", "protected", "masked", "hidden", "raw", "environment_scope",
          "description"}


async def test_list_has_gitlab_fields_and_seeded_scopes(client: httpx.AsyncClient) -> None:
    listed = await call(client, "GET", GATEWAY, ROOT)
    assert listed.status_code == 200 and listed.headers["x-total"] == str(len(listed.json()))
    rows = listed.json()
    assert all(set(row) == ENTITY for row in rows)
    assert sorted(r["environment_scope"] for r in rows if r["key"] == "DATABASE_URL") == ["production",
                                                                                          "staging"]
    hidden = next(r for r in rows if r["key"] == "PROD_DB_PASSWORD")
    assert (hidden["hidden"], hidden["masked"], hidden["value"]) == (True, True, None)
    raw = next(r for r in rows if r["key"] == "LOG_FORMAT")
    assert raw["raw"] is True and "$CI_JOB_ID" in raw["value"]
    by_id = await call(client, "GET", "/projects/1/variables", ROOT)
    assert by_id.json() == rows  # id or URL-encoded path


async def test_crud(client: httpx.AsyncClient) -> None:
    made = await call(client, "POST", GATEWAY, ROOT, data={"key": "NEW_VARIABLE", "value": "new value"})
    assert made.status_code == 201
    assert made.json() == {"variable_type": "env_var", "key": "NEW_VARIABLE", "value": "new value",
                           "protected": False, "masked": False, "hidden": False, "raw": False,
                           "environment_scope": "*", "description": None}
    got = await call(client, "GET", f"{GATEWAY}/NEW_VARIABLE", ROOT)
    assert got.json() == made.json()
    updated = await call(client, "PUT", f"{GATEWAY}/NEW_VARIABLE", ROOT,
                         data={"value": "updated value", "protected": "true", "description": "why"})
    assert updated.status_code == 200
    assert (updated.json()["value"], updated.json()["protected"], updated.json()["description"]) == (
        "updated value", True, "why")
    # GitLab's project PUT declares `value` optional: the rest changes, the value stays
    flags = await call(client, "PUT", f"{GATEWAY}/NEW_VARIABLE", ROOT, data={"variable_type": "file"})
    assert (flags.status_code, flags.json()["variable_type"], flags.json()["value"]) == (200, "file",
                                                                                          "updated value")
    deleted = await call(client, "DELETE", f"{GATEWAY}/NEW_VARIABLE", ROOT)
    assert (deleted.status_code, deleted.content) == (204, b"")
    for method in ("GET", "PUT", "DELETE"):
        gone = await call(client, method, f"{GATEWAY}/NEW_VARIABLE", ROOT, data={"value": "x"})
        assert (gone.status_code, gone.json()) == (404, {"message": "404 Variable Not Found"})


async def test_scopes_and_the_filter(client: httpx.AsyncClient) -> None:
    for method in ("GET", "PUT", "DELETE"):
        both = await call(client, method, f"{GATEWAY}/DATABASE_URL", ROOT, data={"value": "x"})
        assert (both.status_code, both.json()) == (409, {"message": AMBIGUOUS})
    staging = {"filter[environment_scope]": "staging"}
    got = await call(client, "GET", f"{GATEWAY}/DATABASE_URL", ROOT, params=staging)
    assert got.json()["environment_scope"] == "staging" and "staging" in got.json()["value"]
    nowhere = await call(client, "GET", f"{GATEWAY}/DATABASE_URL", ROOT,
                         params={"filter[environment_scope]": "review/*"})
    assert nowhere.json() == {"message": "404 Variable Not Found"}
    # moving staging onto production's scope: taken
    clash = await call(client, "PUT", f"{GATEWAY}/DATABASE_URL", ROOT, params=staging,
                       data={"value": "x", "environment_scope": "production"})
    assert (clash.status_code, clash.json()) == (400, {"message": {"key": ["(DATABASE_URL) has already been "
                                                                            "taken"]}})
    put = await call(client, "PUT", f"{GATEWAY}/DATABASE_URL", ROOT, params=staging,
                     data={"value": "postgres://x", "environment_scope": "review/*"})
    assert put.json()["environment_scope"] == "review/*"
    # a third scope for the key is fine; the same key and scope twice is not
    made = await call(client, "POST", GATEWAY, ROOT, data={"key": "DATABASE_URL", "value": "y",
                                                          "environment_scope": "staging"})
    assert made.status_code == 201
    again = await call(client, "POST", GATEWAY, ROOT, data={"key": "DATABASE_URL", "value": "y",
                                                           "environment_scope": "staging"})
    assert (again.status_code, again.json()) == (400, {"message": {"key": ["(DATABASE_URL) has already been "
                                                                            "taken"]}})
    gone = await call(client, "DELETE", f"{GATEWAY}/DATABASE_URL", ROOT,
                      params={"filter[environment_scope]": "review/*"})
    assert gone.status_code == 204


async def test_environment_scope_is_kept_on_community_edition() -> None:
    """Project variables have environment scopes on every edition (group ones need Premium)."""
    app = create_app(SandboxOptions(scale="tiny", edition="ce"))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox") as ce:
        made = await call(ce, "POST", GATEWAY, ROOT, data={"key": "CE_SCOPED", "value": "v",
                                                          "environment_scope": "staging"})
        assert made.json()["environment_scope"] == "staging"
        group = await call(ce, "POST", "/groups/acme/variables", ROOT,
                           data={"key": "CE_SCOPED", "value": "v", "environment_scope": "staging"})
        assert group.json()["environment_scope"] == "*"


async def test_rules(client: httpx.AsyncClient) -> None:
    bad = await call(client, "POST", GATEWAY, ROOT, json={"key": "has-dash", "value": "x"})
    assert (bad.status_code, bad.json()) == (400, {"message": {"key": ["can contain only letters, digits "
                                                                       "and '_'."]}})
    missing = await call(client, "POST", GATEWAY, ROOT, json={"key": "ONLY_KEY"})
    assert (missing.status_code, missing.json()) == (400, {"error": "value is missing"})
    long = await call(client, "POST", GATEWAY, ROOT,
                      json={"key": "D", "value": "v", "description": "d" * 256})
    assert long.json() == {"message": {"description": ["is too long (maximum is 255 characters)"]}}
    assert (await call(client, "POST", GATEWAY, ROOT,
                       json={"key": "D", "value": "v", "description": "d" * 255})).status_code == 201
    short = await call(client, "POST", GATEWAY, ROOT, json={"key": "M", "value": "short", "masked": True})
    assert short.status_code == 400 and "value" in short.json()["message"]
    kind = await call(client, "POST", GATEWAY, ROOT, json={"key": "T", "value": "v", "variable_type": "x"})
    assert (kind.status_code, kind.json()) == (400, {"error": "variable_type does not have a valid value"})


async def test_masked_and_hidden(client: httpx.AsyncClient) -> None:
    made = await call(client, "POST", GATEWAY, ROOT, json={"key": "SECRET", "value": "s3cr3t-value-99",
                                                          "masked_and_hidden": True})
    assert made.status_code == 201
    assert (made.json()["hidden"], made.json()["masked"], made.json()["value"]) == (True, True, None)
    unmask = await call(client, "PUT", f"{GATEWAY}/SECRET", ROOT, json={"value": "s3cr3t-value-99",
                                                                       "masked": False})
    assert (unmask.status_code, unmask.json()) == (400, {"message": {"base": [
        "The visibility setting cannot be changed for masked and hidden variables."]}})
    assert (await call(client, "GET", f"{GATEWAY}/SECRET", ROOT)).json()["value"] is None


@pytest.mark.parametrize(("headers", "sudo", "status", "body"), [
    (None, None, 401, {"message": "401 Unauthorized"}),
    (ALICE, None, 403, {"message": "403 Forbidden"}),  # a developer of the project
    (ROOT, "frank", 200, None),  # a maintainer
    (ROOT, "jonas.kowalski", 403, {"message": "403 Forbidden"}),  # not a member of a public project
])
async def test_who_may_see_them(client: httpx.AsyncClient, headers: dict[str, str] | None, sudo: str | None,
                                status: int, body: object) -> None:
    answer = (await as_sudo(client, "GET", GATEWAY, sudo) if sudo else
              await call(client, "GET", GATEWAY, headers))
    assert answer.status_code == status
    if body is not None:
        assert answer.json() == body


async def test_a_private_project_is_not_found_for_non_members(client: httpx.AsyncClient) -> None:
    path = "/projects/" + quote("acme/security/vault", safe="") + "/variables"
    answer = await as_sudo(client, "GET", path, "jonas.kowalski")  # no access to acme's private vault
    assert (answer.status_code, answer.json()) == (404, {"message": "404 Project Not Found"})
    anonymous = await call(client, "GET", path)
    assert (anonymous.status_code, anonymous.json()) == (401, {"message": "401 Unauthorized"})
