"""Bulk tag delete over HTTP: 202 and background deletion, the hour lease, validation like GitLab."""

from __future__ import annotations

import httpx
from registry_fixtures import ALICE, ROOT, add_known_repository, tags_path
from starlette.applications import Starlette

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.routes.registry import LEASE_MESSAGE


async def names(client: httpx.AsyncClient, path: str) -> set[str]:
    response = await client.get(path, params={"per_page": 100}, headers=ROOT)
    return {t["name"] for t in response.json()}


async def test_bulk_delete_is_accepted_then_runs_in_the_background(
        app: Starlette, client: httpx.AsyncClient, clock: ManualClock) -> None:
    repo = add_known_repository(app)
    path = tags_path(repo)
    response = await client.request("DELETE", path, params={"name_regex_delete": "pr-.*"}, headers=ALICE)
    assert response.status_code == 202
    assert {"pr-12", "pr-13"} <= await names(client, path)
    clock.advance(0.1)
    assert await names(client, path) == {"latest", "v1.1.0", "v1.0.0", "main-abc1234", "buildcache"}


async def test_rules_keep_latest_keep_pattern_keep_n_and_too_new(
        app: Starlette, client: httpx.AsyncClient, clock: ManualClock) -> None:
    repo = add_known_repository(app)
    path = tags_path(repo)
    params = {"name_regex_delete": ".*", "name_regex_keep": "v1\\.1\\..*", "keep_n": "1", "older_than": "30d"}
    assert (await client.request("DELETE", path, params=params, headers=ROOT)).status_code == 202
    clock.advance(0.1)
    # latest: never; v1.1.0: keep pattern; buildcache (no time): newest, kept by keep_n; main-abc1234: 10
    # days old, too new; v1.0.0, pr-12, pr-13: deleted.
    assert await names(client, path) == {"latest", "v1.1.0", "buildcache", "main-abc1234"}


async def test_json_body_and_deprecated_name_regex(app: Starlette, client: httpx.AsyncClient,
                                                   clock: ManualClock) -> None:
    repo = add_known_repository(app)
    path = tags_path(repo)
    response = await client.request("DELETE", path, json={"name_regex": "main-.*"}, headers=ROOT)
    assert response.status_code == 202
    clock.advance(0.1)
    assert "main-abc1234" not in await names(client, path)


async def test_second_call_within_the_hour_is_refused(app: Starlette, client: httpx.AsyncClient,
                                                      clock: ManualClock) -> None:
    repo = add_known_repository(app)
    other = add_known_repository(app, "other")
    params = {"name_regex_delete": "pr-12"}
    assert (await client.request("DELETE", tags_path(repo), params=params, headers=ROOT)).status_code == 202
    clock.advance(3000)
    again = await client.request("DELETE", tags_path(repo), params={"name_regex_delete": ".*"}, headers=ROOT)
    assert again.status_code == 400
    assert again.json() == {"message": LEASE_MESSAGE}
    assert LEASE_MESSAGE == ("This request has already been made. You can run this at most once an hour "
                             "for a given container repository")
    assert {"latest", "pr-13"} <= await names(client, tags_path(repo))
    # The lease is per repository, and it expires after an hour.
    assert (await client.request("DELETE", tags_path(other), params=params, headers=ROOT)).status_code == 202
    clock.advance(601)
    assert (await client.request("DELETE", tags_path(repo), params=params, headers=ROOT)).status_code == 202


async def test_invalid_patterns_are_refused_with_grapes_message(app: Starlette,
                                                                client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await client.request("DELETE", tags_path(repo), params={"name_regex_delete": "(abc"},
                                    headers=ROOT)
    assert response.status_code == 400
    assert response.json() == {"error": "name_regex_delete is an invalid regexp: missing ): (abc"}
    keep = await client.request("DELETE", tags_path(repo),
                                params={"name_regex_delete": ".*", "name_regex_keep": "a(?=b)"}, headers=ROOT)
    assert keep.status_code == 400
    assert keep.json() == {"error": "name_regex_keep is an invalid regexp: invalid perl operator: (?="}
    # A refused request takes no lease: a valid one right after is accepted.
    valid = await client.request("DELETE", tags_path(repo), params={"name_regex_delete": "x"}, headers=ROOT)
    assert valid.status_code == 202


async def test_missing_pattern_and_bad_keep_n(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    missing = await client.request("DELETE", tags_path(repo), params={"keep_n": "2"}, headers=ROOT)
    assert missing.status_code == 400
    assert missing.json() == {
        "error": "name_regex, name_regex_delete are missing, at least one parameter must be provided"}
    bad = await client.request("DELETE", tags_path(repo), params={"name_regex_delete": ".*", "keep_n": "x"},
                               headers=ROOT)
    assert bad.status_code == 400 and bad.json() == {"error": "keep_n is invalid"}


async def test_unreadable_older_than_deletes_nothing(app: Starlette, client: httpx.AsyncClient,
                                                     clock: ManualClock) -> None:
    repo = add_known_repository(app)
    response = await client.request("DELETE", tags_path(repo),
                                    params={"name_regex_delete": ".*", "older_than": "soon"}, headers=ROOT)
    assert response.status_code == 202
    clock.advance(0.1)
    assert len(await names(client, tags_path(repo))) == 7


async def test_bulk_delete_needs_developer(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await client.request("DELETE", tags_path(repo), params={"name_regex_delete": ".*"},
                                    headers={**ROOT, "Sudo": "bob"})
    assert response.status_code == 403
