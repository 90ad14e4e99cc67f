"""The sandbox answers deactivation by GitLab's dormant rule (`domain.moderation.is_dormant`, the one the
TUI shows): an account approved after 9 days in the sign-up queue and never signed in is dormant (GitLab's
7-day rule); one that signed up yesterday is not."""

from __future__ import annotations

import httpx

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}


async def _approve_then_deactivate(client: httpx.AsyncClient, username: str) -> httpx.Response:
    found = (await client.get("/api/v4/users", headers=ROOT, params={"username": username})).json()
    user_id = found[0]["id"]
    assert found[0]["last_activity_on"] is None
    approved = await client.post(f"/api/v4/users/{user_id}/approve", headers=ROOT)
    assert approved.status_code == 201
    return await client.post(f"/api/v4/users/{user_id}/deactivate", headers=ROOT)


async def test_never_active_for_over_a_week_is_dormant(client: httpx.AsyncClient) -> None:
    response = await _approve_then_deactivate(client, "quentin.waiting")  # signed up 9 days ago
    assert (response.status_code, response.json()) == (201, True)


async def test_signed_up_yesterday_is_not_dormant(client: httpx.AsyncClient) -> None:
    response = await _approve_then_deactivate(client, "omar.applicant")  # signed up 1 day ago
    assert response.status_code == 403 and "cannot be deactivated" in response.json()["message"]
