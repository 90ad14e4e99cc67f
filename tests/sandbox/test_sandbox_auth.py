"""Contract document 1, Authentication: every way to send a token, 401, sudo, public data, private 404."""

from __future__ import annotations

import httpx
import pytest
from starlette.applications import Starlette

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
NOSUDO = {"PRIVATE-TOKEN": "glpat-sandbox-nosudo"}
JOB = {"JOB-TOKEN": "glcbt-sandbox-job"}

UNAUTHORIZED = {"message": "401 Unauthorized"}


@pytest.mark.parametrize(("headers", "params"), [
    ({"PRIVATE-TOKEN": "glpat-sandbox-alice"}, {}),
    ({"Private-Token": "glpat-sandbox-alice"}, {}),
    ({"Authorization": "Bearer glpat-sandbox-alice"}, {}),
    ({}, {"private_token": "glpat-sandbox-alice"}),
    ({}, {"access_token": "glpat-sandbox-alice"}),
])
async def test_each_token_method_identifies_alice(client: httpx.AsyncClient, headers: dict[str, str],
                                                  params: dict[str, str]) -> None:
    response = await client.get("/api/v4/user", headers=headers, params=params)
    assert response.status_code == 200
    assert response.json()["username"] == "alice"


async def test_job_token_header_acts_as_the_user_who_triggered_the_job(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/job", headers=JOB)
    assert response.status_code == 200
    assert response.json()["user"]["username"] == "alice"
    by_param = await client.get("/api/v4/job", params={"job_token": "glcbt-sandbox-job"})
    assert by_param.json()["user"]["username"] == "alice"


async def test_job_token_is_not_a_private_token(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/user", headers={"PRIVATE-TOKEN": "glcbt-sandbox-job"})
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)


@pytest.mark.parametrize("headers", [{}, {"PRIVATE-TOKEN": "nope"}, {"Authorization": "Bearer nope"},
                                     {"JOB-TOKEN": "nope"}])
async def test_missing_or_invalid_auth_is_401_with_exact_body(client: httpx.AsyncClient,
                                                              headers: dict[str, str]) -> None:
    response = await client.get("/api/v4/user", headers=headers)
    assert response.status_code == 401
    assert response.json() == UNAUTHORIZED


async def test_invalid_token_is_401_even_for_public_data(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects", headers={"PRIVATE-TOKEN": "wrong"})
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)


async def test_public_data_without_auth(client: httpx.AsyncClient) -> None:
    projects = (await client.get("/api/v4/projects", params={"per_page": 100})).json()
    assert projects and {p["visibility"] for p in projects} == {"public"}
    groups = (await client.get("/api/v4/groups", params={"per_page": 100})).json()
    assert groups and {g["visibility"] for g in groups} == {"public"}
    one = await client.get("/api/v4/projects/acme%2Fplatform%2Fapi-gateway")
    assert one.status_code == 200 and one.json()["path_with_namespace"] == "acme/platform/api-gateway"


async def test_private_project_is_404_to_non_members(client: httpx.AsyncClient) -> None:
    for headers in (ALICE, {}):
        response = await client.get("/api/v4/projects/hidden-lab%2Fsecrets", headers=headers)
        assert response.status_code == 404
        assert response.json() == {"message": "404 Project Not Found"}
    assert (await client.get("/api/v4/projects/hidden-lab%2Fsecrets", headers=ROOT)).status_code == 200


async def test_internal_project_needs_a_signed_in_user(client: httpx.AsyncClient) -> None:
    path = "/api/v4/projects/opensource%2Ftools"
    assert (await client.get(path)).status_code == 404
    assert (await client.get(path, headers={"PRIVATE-TOKEN": "glpat-sandbox-alice"})).status_code == 200


@pytest.mark.parametrize("how", ["header", "param"])
@pytest.mark.parametrize("target", ["bob", "BOB", "3"])
async def test_sudo_acts_as_the_target(client: httpx.AsyncClient, how: str, target: str) -> None:
    if how == "header":
        response = await client.get("/api/v4/user", headers={**ROOT, "Sudo": target})
    else:
        response = await client.get("/api/v4/user", headers=ROOT, params={"sudo": target})
    assert response.status_code == 200
    assert response.json()["username"] == "bob"


async def test_sudo_applies_the_target_permissions(client: httpx.AsyncClient) -> None:
    path = "/api/v4/projects/hidden-lab%2Fsecrets"
    assert (await client.get(path, headers={**ROOT, "Sudo": "alice"})).status_code == 404
    assert (await client.get(path, headers={**ROOT, "Sudo": "bob"})).status_code == 200


async def test_sudo_by_a_non_admin_is_403(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/user", headers={**ALICE, "Sudo": "bob"})
    assert response.status_code == 403
    assert response.json() == {"message": "403 Forbidden - Must be admin to use sudo"}


async def test_sudo_without_the_sudo_scope_is_403_insufficient_scope(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/user", headers={**NOSUDO, "Sudo": "bob"})
    assert response.status_code == 403
    assert response.json() == {
        "error": "insufficient_scope",
        "error_description": "The request requires higher privileges than provided by the access token.",
        "scope": "sudo",
    }


async def test_sudo_to_an_unknown_user_is_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/user", headers={**ROOT, "Sudo": "x"})
    assert response.status_code == 404
    assert response.json() == {"message": "404 User with ID or username 'x' Not Found"}
    by_id = await client.get("/api/v4/user", headers=ROOT, params={"sudo": "99999"})
    assert by_id.json() == {"message": "404 User with ID or username '99999' Not Found"}


async def test_sudo_without_a_token_is_401(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects", headers={"Sudo": "bob"})
    assert (response.status_code, response.json()) == (401, UNAUTHORIZED)


async def test_sudo_with_a_job_token_is_403(client: httpx.AsyncClient, app: Starlette) -> None:
    from labdeck.sandbox.store import Token

    app.state.store.tokens["glcbt-root-job"] = Token("glcbt-root-job", 1, kind="job")
    response = await client.get("/api/v4/job", headers={"JOB-TOKEN": "glcbt-root-job", "Sudo": "bob"})
    assert response.status_code == 403
    assert response.json() == {"message": "403 Forbidden - Must be authenticated using an OAuth or Personal "
                                          "Access Token to use sudo"}
    as_alice = await client.get("/api/v4/job", headers={**JOB, "Sudo": "bob"})
    assert as_alice.json() == {"message": "403 Forbidden - Must be admin to use sudo"}
    where_ignored = await client.get("/api/v4/user", headers={**JOB, "Sudo": "bob"})
    assert (where_ignored.status_code, where_ignored.json()) == (401, UNAUTHORIZED)


async def test_blocked_users_token_is_refused(client: httpx.AsyncClient, app: Starlette) -> None:
    from labdeck.sandbox.store import Token

    store = app.state.store
    blocked = store.user_by_username("blocked.user")
    store.tokens["glpat-blocked"] = Token("glpat-blocked", blocked.id)
    response = await client.get("/api/v4/user", headers={"PRIVATE-TOKEN": "glpat-blocked"})
    assert response.status_code == 401


async def test_unknown_api_route_is_json_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/no/such/thing", headers=ROOT)
    assert (response.status_code, response.json()) == (404, {"error": "404 Not Found"})
    wrong_method = await client.delete("/api/v4/version", headers=ROOT)
    assert wrong_method.status_code == 405


def test_tokens_stay_out_of_reprs(app: Starlette) -> None:
    store = app.state.store
    assert "glpat" not in repr(store)
    assert "glpat" not in repr(store.tokens["glpat-sandbox-root"])
