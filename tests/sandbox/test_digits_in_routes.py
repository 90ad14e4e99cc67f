"""Digits are ASCII digits in the sandbox too (issue 32 item 9): a path id, a parameter or a GraphQL global id
spelled with `²` (which `str.isdigit` takes for a digit and `int` refuses) or `٣` (which `int` reads as 3)
is not a number. GitLab's routes require `id: /[0-9]*/`-style ids and Grape's Integer type reads ASCII only
(Ruby's `Integer("٣")` raises), so each answer here is GitLab's "not found" or "invalid", never a crash (the
ASGI transport raises what the app raises) and never the record whose ASCII number it resembles."""

from __future__ import annotations

import httpx
import pytest

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
SUP, ARABIC_3 = "%C2%B2", "%D9%A3"  # "²" and "٣", URL-encoded


@pytest.mark.parametrize(("method", "path", "status", "body"), [
    ("GET", f"/projects/{SUP}", 404, {"message": "404 Project Not Found"}),
    ("GET", f"/projects/{ARABIC_3}", 404, {"message": "404 Project Not Found"}),
    ("GET", f"/groups/{SUP}", 404, {"message": "404 Group Not Found"}),
    ("GET", f"/users/{SUP}", 404, {"message": "404 User Not Found"}),
    ("POST", f"/users/{SUP}/block", 404, {"error": "404 Not Found"}),
    ("POST", f"/users/{ARABIC_3}/block", 404, {"error": "404 Not Found"}),
    ("GET", f"/groups/26/badges/{SUP}", 400, {"error": "badge_id is invalid"}),
    ("GET", f"/projects/1/deployments/{SUP}", 400, {"error": "deployment_id is invalid"}),
    ("GET", f"/projects/1/environments/{SUP}", 404, None),
    ("DELETE", f"/groups/26/members/{SUP}", 400, {"error": "user_id is invalid"}),
    ("GET", f"/groups/26/billable_members/{SUP}/memberships", 404, None),
    ("GET", f"/projects?page={ARABIC_3}", 400, {"error": "page is invalid"}),
    ("GET", f"/projects?per_page={SUP}", 400, {"error": "per_page is invalid"}),
])
async def test_a_wide_digit_is_not_a_number(client: httpx.AsyncClient, method: str, path: str, status: int,
                                            body: object) -> None:
    answer = await client.request(method, "/api/v4" + path, headers=ROOT)
    assert answer.status_code == status, answer.text
    if body is not None:
        assert answer.json() == body


async def test_a_member_added_by_a_wide_digit_is_not_found(client: httpx.AsyncClient) -> None:
    answer = await client.post("/api/v4/groups/26/members", headers=ROOT,
                               json={"user_id": "٣", "access_level": 30})
    assert (answer.status_code, answer.json()) == (404, {"message": "404 User Not Found"})
    answer = await client.post("/api/v4/groups/26/members", headers=ROOT,
                               json={"user_id": "²,٣", "access_level": 30})
    assert answer.status_code == 400 and set(answer.json()["message"]) == {"²", "٣"}


async def test_a_global_id_with_a_wide_digit_is_a_coercion_error(client: httpx.AsyncClient) -> None:
    query = '{ containerRepository(id: "gid://gitlab/ContainerRepository/²") { id } }'
    answer = await client.post("/api/graphql", headers=ROOT, json={"query": query})
    assert answer.status_code == 200
    assert "does not represent an instance of ContainerRepository" in answer.json()["errors"][0]["message"]


async def test_a_sudo_with_a_wide_digit_names_nobody(client: httpx.AsyncClient) -> None:
    answer = await client.get("/api/v4/user", headers={**ROOT, "Sudo": "²".encode("latin-1")})
    assert answer.status_code == 404 and "Not Found" in answer.json()["message"]
