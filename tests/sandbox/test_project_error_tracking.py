"""Conformance of the error tracking settings routes: read, enable and disable with `active`,
Maintainers only, and the 404 of a project without settings."""

from __future__ import annotations

import httpx

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer (30) in acme
FRANK = {**ROOT, "Sudo": "frank"}  # Maintainer (40) in acme
SETTINGS = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/error_tracking/settings"


async def test_read(client: httpx.AsyncClient) -> None:
    response = await client.get(SETTINGS, headers=FRANK)
    assert response.status_code == 200
    body = response.json()
    assert body["active"] is True and body["project_name"] == "api-gateway errors"
    assert body["tracker_external_url"] == "https://sentry.acme.test/acme/api-gateway"
    assert body["api_url"] == "https://sentry.acme.test/api/0/projects/acme/api-gateway"


async def test_disable_and_enable(client: httpx.AsyncClient) -> None:
    off = await client.patch(SETTINGS, headers=FRANK, json={"active": False})
    assert (off.status_code, off.json()["active"]) == (200, False)
    assert (await client.get(SETTINGS, headers=FRANK)).json()["active"] is False
    on = await client.patch(SETTINGS, headers=FRANK, data={"active": "true"})
    assert on.json()["active"] is True


async def test_active_is_required_and_boolean(client: httpx.AsyncClient) -> None:
    missing = await client.patch(SETTINGS, headers=FRANK, json={})
    assert (missing.status_code, missing.json()) == (400, {"error": "active is missing"})
    wrong = await client.patch(SETTINGS, headers=FRANK, json={"active": "maybe"})
    assert (wrong.status_code, wrong.json()) == (400, {"error": "active is invalid"})


async def test_maintainers_only(client: httpx.AsyncClient) -> None:
    assert (await client.get(SETTINGS, headers=ALICE)).status_code == 403
    assert (await client.patch(SETTINGS, headers=ALICE, json={"active": False})).status_code == 403
    assert (await client.get(SETTINGS)).status_code == 401


async def test_no_settings_is_404(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects/acme%2Fhandbook/error_tracking/settings", headers=ROOT)
    assert response.status_code == 404
    assert response.json() == {"message": "404 Error Tracking Setting Not Found"}
