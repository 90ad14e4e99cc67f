"""Conformance of `POST /users/:id/<op>`: every row of GitLab's API docs's "User account moderation"
table, each refusal with its status and message, 404, non-administrators and anonymous callers."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from starlette.applications import Starlette

from labdeck.sandbox.routes.moderation import ModerationLog

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
UNBLOCK_FIRST = "The user you are trying to approve is blocked and must be unblocked first"
OPS = ("approve", "reject", "deactivate", "activate", "block", "unblock", "ban", "unban")


async def uid(client: httpx.AsyncClient, username: str) -> int:
    found = (await client.get("/api/v4/users", headers=ROOT, params={"username": username})).json()
    assert len(found) == 1, username
    return int(found[0]["id"])


async def state_of(client: httpx.AsyncClient, user_id: int) -> str | None:
    response = await client.get(f"/api/v4/users/{user_id}", headers=ROOT)
    return None if response.status_code == 404 else str(response.json()["state"])


async def moderate(client: httpx.AsyncClient, username: str, op: str,
                   headers: dict[str, str] | None = None) -> tuple[int, Any, int]:
    user_id = await uid(client, username)
    sent = ROOT if headers is None else headers
    response = await client.post(f"/api/v4/users/{user_id}/{op}", headers=sent)
    return response.status_code, response.json(), user_id


@pytest.mark.parametrize(("username", "op", "status", "body", "after"), [
    ("pending.user", "approve", 201, {"message": "Success"}, "active"),
    ("pending.user", "reject", 200, {"message": "Success"}, None),
    ("dormant.user", "deactivate", 201, True, "deactivated"),
    ("deactivated.user", "activate", 201, True, "active"),
    ("alice", "block", 201, True, "blocked"),
    ("blocked.user", "unblock", 201, True, "active"),
    ("pending.user", "unblock", 201, True, "active"),
    ("alice", "ban", 201, True, "banned"),
    ("banned.user", "unban", 201, True, "active"),
    ("deactivated.user", "block", 201, True, "blocked"),
])
async def test_allowed_transitions(client: httpx.AsyncClient, username: str, op: str, status: int,
                                   body: Any, after: str | None) -> None:
    got_status, got_body, user_id = await moderate(client, username, op)
    assert (got_status, got_body) == (status, body)
    assert await state_of(client, user_id) == after


@pytest.mark.parametrize(("username", "op", "status", "message"), [
    ("blocked.user", "approve", 403, UNBLOCK_FIRST),
    ("ldap.user", "approve", 403, UNBLOCK_FIRST),
    ("deactivated.user", "approve", 409, "The user you are trying to approve is not pending approval"),
    ("alice", "approve", 409, "The user you are trying to approve is not pending approval"),
    ("alice", "reject", 409, "User does not have a pending request"),
    ("blocked.user", "reject", 409, "User does not have a pending request"),
    ("blocked.user", "deactivate", 403, "Error occurred. A blocked user cannot be deactivated"),
    ("ldap.user", "deactivate", 403, "Error occurred. A blocked user cannot be deactivated"),
    ("alice", "deactivate", 403,
     "The user you are trying to deactivate has been active in the past 90 days and cannot be deactivated"),
    ("ghost", "deactivate", 403, "Internal users cannot be deactivated"),
    ("blocked.user", "activate", 403, "Error occurred. A blocked user must be unblocked to be activated"),
    ("ldap.user", "activate", 403, "Error occurred. A blocked user must be unblocked to be activated"),
    ("ldap.user", "block", 403, "403 Forbidden - LDAP blocked users cannot be modified by the API"),
    ("support-bot", "block", 403, "An internal user cannot be blocked"),
    ("root", "block", 403, "403 Forbidden - The API initiating user cannot be blocked by the API"),
    ("ldap.user", "unblock", 403, "403 Forbidden - LDAP blocked users cannot be unblocked by the API"),
    ("deactivated.user", "unblock", 403, "403 Forbidden - Deactivated users cannot be unblocked by the API"),
    ("blocked.user", "ban", 403, "You cannot ban blocked users."),
    ("pending.user", "ban", 403, "You cannot ban blocked_pending_approval users."),
    ("alice", "unban", 403, "You cannot unban active users."),
    ("deactivated.user", "unban", 403, "You cannot unban deactivated users."),
])
async def test_refusals_leave_the_account_unchanged(client: httpx.AsyncClient, username: str, op: str,
                                                    status: int, message: str) -> None:
    user_id = await uid(client, username)
    before = await state_of(client, user_id)
    got_status, body, _ = await moderate(client, username, op)
    assert (got_status, body) == (status, {"message": message})
    assert await state_of(client, user_id) == before


@pytest.mark.parametrize(("username", "op", "body"), [
    ("deactivated.user", "deactivate", True),
    ("alice", "activate", True),
    ("blocked.user", "block", True),
    ("alice", "unblock", False),
])
async def test_no_ops_answer_like_gitlab_and_change_nothing(client: httpx.AsyncClient, username: str, op: str,
                                                             body: Any) -> None:
    user_id = await uid(client, username)
    before = await state_of(client, user_id)
    assert (await moderate(client, username, op))[:2] == (201, body)
    assert await state_of(client, user_id) == before


@pytest.mark.parametrize("op", OPS)
async def test_unknown_user_is_404(client: httpx.AsyncClient, op: str) -> None:
    response = await client.post(f"/api/v4/users/99999/{op}", headers=ROOT)
    assert (response.status_code, response.json()) == (404, {"message": "404 User Not Found"})


@pytest.mark.parametrize("op", OPS)
async def test_non_administrators_are_refused(client: httpx.AsyncClient, op: str) -> None:
    status, body, user_id = await moderate(client, "pending.user", op, headers=ALICE)
    expected = {"approve": "You are not allowed to approve a user",
                "reject": "You are not allowed to reject a user"}.get(op, "403 Forbidden")
    assert (status, body) == (403, {"message": expected})
    assert await state_of(client, user_id) == "blocked_pending_approval"


async def test_non_admin_on_missing_user_is_403_except_approve_and_reject(client: httpx.AsyncClient) -> None:
    block = await client.post("/api/v4/users/99999/block", headers=ALICE)
    approve = await client.post("/api/v4/users/99999/approve", headers=ALICE)
    assert block.status_code == 403 and approve.status_code == 404


async def test_sudo_as_a_regular_user_is_not_an_administrator(client: httpx.AsyncClient) -> None:
    status, body, _ = await moderate(client, "blocked.user", "unblock", headers={**ROOT, "Sudo": "alice"})
    assert (status, body) == (403, {"message": "403 Forbidden"})


async def test_anonymous_callers_are_401(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v4/users/8/approve")
    assert (response.status_code, response.json()) == (401, {"message": "401 Unauthorized"})


async def test_non_numeric_id_matches_no_route(client: httpx.AsyncClient) -> None:
    response = await client.post("/api/v4/users/alice/block", headers=ROOT)
    assert (response.status_code, response.json()) == (404, {"error": "404 Not Found"})


async def test_get_is_not_allowed(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/users/2/block", headers=ROOT)
    assert (response.status_code, response.json()) == (405, {"error": "405 Not Allowed"})


async def test_a_blocked_users_token_stops_working(client: httpx.AsyncClient) -> None:
    assert (await client.get("/api/v4/user", headers=ALICE)).status_code == 200
    assert (await moderate(client, "alice", "block"))[0] == 201
    assert (await client.get("/api/v4/user", headers=ALICE)).status_code == 401


async def test_full_cycle_and_log(client: httpx.AsyncClient, app: Starlette) -> None:
    for op in ("ban", "unban", "block", "unblock"):
        assert (await moderate(client, "bob", op))[0] == 201
    assert (await moderate(client, "bob", "unban"))[0] == 403
    log = app.state.store.areas["moderation"]
    assert isinstance(log, ModerationLog)
    assert [(e.op, e.status, e.state_before, e.state_after) for e in log.events] == [
        ("ban", 201, "active", "banned"), ("unban", 201, "banned", "active"),
        ("block", 201, "active", "blocked"), ("unblock", 201, "blocked", "active"),
        ("unban", 403, "active", "active"),
    ]


async def test_rejected_user_disappears_from_the_listing(client: httpx.AsyncClient) -> None:
    assert (await moderate(client, "pending.user", "reject"))[0] == 200
    users = (await client.get("/api/v4/users", headers=ROOT, params={"per_page": 100})).json()
    assert "pending.user" not in {u["username"] for u in users}
    again = await client.post("/api/v4/users/8/reject", headers=ROOT)
    assert again.status_code == 404


async def test_form_and_json_bodies_are_ignored(client: httpx.AsyncClient) -> None:
    user_id = await uid(client, "pending.user")
    response = await client.post(f"/api/v4/users/{user_id}/approve", headers=ROOT, json={"id": 1})
    assert (response.status_code, response.json()) == (201, {"message": "Success"})
