"""Conformance of project issues (design appendix: real GitLab) and of the issue endpoints of GitLab's
API docs: read, create, update, close/reopen, delete, notes and `/promote`, to-do, time tracking, related
and closing merge requests."""

from __future__ import annotations

from typing import Any

import httpx

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
GUEST = {**ROOT, "Sudo": "external.user"}  # a Guest of acme
GATEWAY = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/issues"


async def call(client: httpx.AsyncClient, method: str, path: str, status: int, headers: dict[str, str] = ROOT,
               **kwargs: Any) -> Any:
    response = await client.request(method, path, headers=headers, **kwargs)
    assert response.status_code == status, response.text
    return response.json() if response.content else None


async def test_list_and_read_project_issues(client: httpx.AsyncClient) -> None:
    issues = await call(client, "GET", GATEWAY, 200, ALICE)
    assert [i["iid"] for i in issues] == [5, 3, 2, 1, 4]  # newest first
    issue = await call(client, "GET", f"{GATEWAY}/1", 200, ALICE)
    assert issue["title"] == "Gateway returns 502 under load" and issue["references"]["relative"] == "#1"
    assert issue["subscribed"] is True  # alice wrote it
    assert (await call(client, "GET", f"{GATEWAY}/1", 200))["subscribed"] is False
    assert await call(client, "GET", f"{GATEWAY}/99", 404) == {"message": "404 Issue Not Found"}
    assert await call(client, "GET", f"{GATEWAY}/3", 404, GUEST) == {"message": "404 Issue Not Found"}


async def test_create_needs_a_title(client: httpx.AsyncClient) -> None:
    body = await call(client, "POST", GATEWAY, 400, ALICE, json={"description": "no title"})
    assert body == {"error": "title is missing"}
    assert (await client.post(GATEWAY, json={"title": "x"})).status_code == 401


async def test_create_with_fields(client: httpx.AsyncClient) -> None:
    milestone = (await call(client, "GET", f"{GATEWAY}/1", 200))["milestone"]["id"]
    issue = await call(client, "POST", GATEWAY, 201, ALICE, json={
        "title": "New one", "description": "Body", "labels": "bug,brand-new", "assignee_ids": [3],
        "milestone_id": milestone, "due_date": "2030-01-02", "confidential": True, "issue_type": "incident"})
    assert issue["iid"] == 6 and issue["author"]["username"] == "alice" and issue["state"] == "opened"
    assert issue["labels"] == ["bug", "brand-new"] and [a["id"] for a in issue["assignees"]] == [3]
    assert issue["milestone"]["id"] == milestone and issue["due_date"] == "2030-01-02"
    assert issue["confidential"] is True and issue["issue_type"] == "incident"
    assert (await call(client, "GET", f"{GATEWAY}/6", 200, ALICE))["title"] == "New one"


async def test_update_labels_assignees_milestone_due_date(client: httpx.AsyncClient) -> None:
    path = f"{GATEWAY}/1"
    issue = await call(client, "PUT", path, 200, ALICE, json={"add_labels": "performance,bug",
                                                             "remove_labels": "backend"})
    assert issue["labels"] == ["bug", "priority::high", "performance"]
    issue = await call(client, "PUT", path, 200, ALICE, json={"labels": "ux"})
    assert issue["labels"] == ["ux"]
    issue = await call(client, "PUT", path, 200, ALICE, json={"assignee_ids": [2, 4]})
    assert [a["username"] for a in issue["assignees"]] == ["alice", "carol"]
    issue = await call(client, "PUT", path, 200, ALICE, json={"assignee_ids": []})
    assert issue["assignees"] == [] and issue["assignee"] is None
    issue = await call(client, "PUT", path, 200, ALICE, data={"assignee_ids[]": ["3"]})
    assert [a["username"] for a in issue["assignees"]] == ["bob"]
    issue = await call(client, "PUT", path, 200, ALICE, data={"assignee_ids[]": [""]})
    assert issue["assignees"] == []
    assert await call(client, "PUT", path, 400, ALICE, json={"assignee_ids": ["bob"]}) == {
        "error": "assignee_ids is invalid"}
    issue = await call(client, "PUT", path, 200, ALICE, json={"milestone_id": 0, "due_date": "",
                                                             "confidential": True, "title": "Renamed"})
    assert issue["milestone"] is None and issue["due_date"] is None and issue["confidential"] is True
    assert issue["title"] == "Renamed"
    assert await call(client, "PUT", path, 404, ALICE, json={"milestone_id": 999999}) == {
        "message": "404 Milestone Not Found"}


async def test_close_and_reopen(client: httpx.AsyncClient) -> None:
    path = f"{GATEWAY}/2"
    issue = await call(client, "PUT", path, 200, ALICE, json={"state_event": "close"})
    assert issue["state"] == "closed" and issue["closed_by"]["username"] == "alice" and issue["closed_at"]
    issue = await call(client, "PUT", path, 200, ALICE, data={"state_event": "reopen"})
    assert issue["state"] == "opened" and issue["closed_by"] is None and issue["closed_at"] is None
    body = await call(client, "PUT", path, 400, ALICE, json={"state_event": "shut"})
    assert body == {"error": "state_event does not have a valid value"}


async def test_update_rules(client: httpx.AsyncClient) -> None:
    body = await call(client, "PUT", f"{GATEWAY}/2", 400, ALICE, json={})
    assert body["error"].endswith("at least one parameter must be provided")
    assert await call(client, "PUT", f"{GATEWAY}/2", 403, GUEST, json={"title": "x"}) == {
        "message": "403 Forbidden"}


async def test_delete_needs_an_owner(client: httpx.AsyncClient) -> None:
    assert await call(client, "DELETE", f"{GATEWAY}/5", 403, ALICE) == {"message": "403 Forbidden"}
    assert await call(client, "DELETE", f"{GATEWAY}/5", 204) is None
    await call(client, "GET", f"{GATEWAY}/5", 404)


async def test_notes_list_and_create(client: httpx.AsyncClient) -> None:
    notes = await call(client, "GET", f"{GATEWAY}/1/notes", 200, ALICE)
    assert [n["system"] for n in notes] == [False, False, True]  # newest first
    assert notes[0]["noteable_type"] == "Issue" and notes[0]["noteable_iid"] == 1
    note = await call(client, "POST", f"{GATEWAY}/1/notes", 201, ALICE, json={"body": "Me too"})
    assert note["body"] == "Me too" and note["author"]["username"] == "alice" and note["system"] is False
    body = await call(client, "POST", f"{GATEWAY}/1/notes", 400, ALICE, json={})
    assert body == {"error": "body is missing"}
    assert (await call(client, "GET", f"{GATEWAY}/1", 200))["user_notes_count"] == 3


async def test_promote_with_a_note(client: httpx.AsyncClient) -> None:
    note = await call(client, "POST", f"{GATEWAY}/2/notes", 201, ALICE, json={"body": "Bigger.\n/promote"})
    assert note["commands_changes"] == {"promote_to_epic": True} and note["body"] == "Bigger."
    issue = await call(client, "GET", f"{GATEWAY}/2", 200)
    assert issue["state"] == "closed" and issue["epic"]["title"] == "Add rate limit headers"
    personal = "/api/v4/projects/alice%2Fdotfiles/issues/1/notes"
    note = await call(client, "POST", personal, 201, ALICE, json={"body": "/promote"})
    assert note["commands_changes"] == {"promote_to_epic": False}
    inline = await call(client, "POST", f"{GATEWAY}/1/notes", 201, ALICE, json={"body": "do not /promote"})
    assert inline["commands_changes"] == {}


async def test_todo_is_created_once(client: httpx.AsyncClient) -> None:
    todo = await call(client, "POST", f"{GATEWAY}/1/todo", 201, ALICE)
    assert todo["state"] == "pending" and todo["target_type"] == "Issue" and todo["target"]["iid"] == 1
    assert todo["project"]["path_with_namespace"] == "acme/platform/api-gateway"
    again = await client.post(f"{GATEWAY}/1/todo", headers=ALICE)
    assert again.status_code == 304 and again.content == b""
    assert (await client.post(f"{GATEWAY}/1/todo", headers=ROOT)).status_code == 201


async def test_time_tracking(client: httpx.AsyncClient) -> None:
    base = f"{GATEWAY}/5"
    stats = await call(client, "POST", f"{base}/time_estimate", 200, ALICE,
                       json={"duration": "1mo 2w 3d 4h 5m"})
    assert stats == {"time_estimate": (4 * 5 * 8 + 2 * 5 * 8 + 3 * 8 + 4) * 3600 + 300, "total_time_spent": 0,
                     "human_time_estimate": "1mo 2w 3d 4h 5m", "human_total_time_spent": None}
    stats = await call(client, "POST", f"{base}/add_spent_time", 201, ALICE, json={"duration": "3h30m"})
    assert stats["total_time_spent"] == 12600 and stats["human_total_time_spent"] == "3h 30m"
    stats = await call(client, "POST", f"{base}/add_spent_time", 201, ALICE, json={"duration": "-30m"})
    assert stats["human_total_time_spent"] == "3h"
    assert (await call(client, "GET", f"{base}/time_stats", 200, ALICE))["total_time_spent"] == 10800
    stats = await call(client, "POST", f"{base}/reset_time_estimate", 200, ALICE)
    assert stats["time_estimate"] == 0 and stats["human_time_estimate"] is None
    stats = await call(client, "POST", f"{base}/reset_spent_time", 200, ALICE)
    assert stats["total_time_spent"] == 0 and stats["human_total_time_spent"] is None
    assert await call(client, "POST", f"{base}/time_estimate", 400, ALICE, json={}) == {
        "error": "duration is missing"}
    refused = {"message": "400 Bad request - Time estimate must have a valid format and be greater than or "
                          "equal to zero."}
    await call(client, "POST", f"{base}/time_estimate", 200, ALICE, json={"duration": "2h"})
    for duration in ("3 parsecs", "-1h"):
        bad = await call(client, "POST", f"{base}/time_estimate", 400, ALICE, json={"duration": duration})
        assert bad == refused
    kept = await call(client, "GET", f"{base}/time_stats", 200, ALICE)
    assert kept["time_estimate"] == 7200  # a refused estimate leaves the issue as it was
    zero = await call(client, "POST", f"{base}/time_estimate", 200, ALICE, json={"duration": "0"})
    assert zero["time_estimate"] == 0
    await call(client, "POST", f"{base}/add_spent_time", 400, ALICE, json={"duration": "-1h"})


async def test_related_and_closing_merge_requests(client: httpx.AsyncClient) -> None:
    related = await call(client, "GET", f"{GATEWAY}/1/related_merge_requests", 200, ALICE)
    assert [m["title"] for m in related] == ["Fix 502 under load", "Add a load test"]
    assert related[1]["state"] == "merged"
    assert related[0]["references"]["full"] == "acme/platform/api-gateway!1"
    for field in ("latest_build_started_at", "latest_build_finished_at", "first_deployed_to_production_at"):
        assert all(field in m for m in related)  # GitLab's full merge request entity
    closing = await call(client, "GET", f"{GATEWAY}/1/closed_by", 200, ALICE)
    assert all("latest_build_started_at" not in m for m in closing)  # MergeRequestBasic
    assert [m["iid"] for m in closing] == [1]
    assert await call(client, "GET", f"{GATEWAY}/2/closed_by", 200, ALICE) == []
    secret = "/api/v4/projects/hidden-lab%2Fsecrets/issues/1/closed_by"
    assert await call(client, "GET", secret, 404, ALICE) == {"message": "404 Project Not Found"}


async def test_mutations_show_in_the_listings(client: httpx.AsyncClient) -> None:
    before = await call(client, "GET", "/api/v4/issues", 200, ALICE, params={"labels": "ux", "scope": "all"})
    await call(client, "PUT", f"{GATEWAY}/5", 200, ALICE, json={"add_labels": "ux"})
    after = await call(client, "GET", "/api/v4/issues", 200, ALICE, params={"labels": "ux", "scope": "all"})
    assert len(after) == len(before) + 1


async def test_project_milestones(client: httpx.AsyncClient) -> None:
    path = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/milestones"
    milestones = await call(client, "GET", path, 200, ALICE)
    assert [m["title"] for m in milestones] == ["Backlog", "v2.0", "v1.0"]
    titled = await call(client, "GET", path, 200, ALICE, params={"title": "v2.0"})
    assert [m["title"] for m in titled] == ["v2.0"]
    assert [m["state"] for m in await call(client, "GET", path, 200, ALICE, params={"state": "closed"})] == [
        "closed"]
