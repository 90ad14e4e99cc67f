"""The undo journal against the sandbox: every change is journalled with what was there before, undone
where GitLab has an inverse, refused when the target changed since, and the file holds no secret."""

from __future__ import annotations

import os
import stat
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_clients import ROOT_TOKEN, ClientPool

from labdeck.api.client import ApiClient
from labdeck.api.journal import Journal, UndoRefused, UndoService, current_job
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "projects/acme%2Fplatform%2Fapi-gateway"


@pytest.fixture
async def client(tmp_path: Path) -> AsyncIterator[ApiClient]:
    pool = ClientPool(create_app(SandboxOptions(scale="tiny")))
    made = pool.client()
    made.journal = Journal(tmp_path / "journal" / "demo.jsonl")
    yield made
    await pool.aclose()


def undo(client: ApiClient) -> UndoService:
    assert client.journal is not None
    return UndoService(client, client.journal)


def last(client: ApiClient) -> Any:
    assert client.journal is not None
    return client.journal.entries()[-1]


async def test_ban_then_undo_returns_the_user_to_active(client: ApiClient) -> None:
    await client.post_json("/users/2/ban")
    entry = last(client)
    assert (entry.operation, entry.target, entry.ok, entry.before["state"]) == ("ban user", "@alice", True,
                                                                                 "active")
    assert await undo(client).undo(entry) == "undone: ban user @alice"
    assert (await client.get_json("/users/2"))["state"] == "active"
    undo_entry = last(client)
    assert undo_entry.undoes == entry.id and undo_entry.operation == "unban user"
    with pytest.raises(UndoRefused, match="undone already"):
        await undo(client).undo(entry)


async def test_an_undo_is_refused_when_the_target_changed_since(client: ApiClient) -> None:
    await client.post_json("/users/2/ban")
    entry = last(client)
    other = ApiClient(client.settings, transport=client._http._transport)  # someone else, no journal
    await other.post_json("/users/2/unban")
    await other.aclose()
    with pytest.raises(UndoRefused, match=r"changed since \(its state is now active, not banned\)"):
        await undo(client).undo(entry)


async def test_member_removal_is_undone_with_the_same_level_and_expiry(client: ApiClient) -> None:
    await client.put_json("/groups/acme/members/2", {"access_level": 40, "expires_at": "2031-05-01"})
    await client.delete("/groups/acme/members/2")
    removal = last(client)
    assert removal.operation == "remove member" and removal.before["access_level"] == 40
    await undo(client).undo(removal)
    member = await client.get_json("/groups/acme/members/2")
    assert (member["access_level"], member["expires_at"]) == (40, "2031-05-01")


async def test_a_deleted_label_and_a_deleted_tag_are_recreated(client: ApiClient) -> None:
    label = (await client.get_json("/groups/acme/labels/bug"))
    await client.delete(f"/groups/acme/labels/{label['id']}")
    await undo(client).undo(last(client))
    again = await client.get_json("/groups/acme/labels/bug")
    assert (again["color"], again["description"]) == (label["color"], label["description"])
    tag = (await client.get_json(f"/{GATEWAY}/repository/tags"))[0]
    await client.delete(f"/{GATEWAY}/repository/tags/{tag['name']}")
    await undo(client).undo(last(client))
    back = await client.get_json(f"/{GATEWAY}/repository/tags/{tag['name']}")
    assert back["commit"]["id"] == tag["commit"]["id"]


async def test_variables_unmasked_undone_in_this_run_masked_never(client: ApiClient, tmp_path: Path) -> None:
    variables = {v["key"]: v for v in await client.get_json("/groups/acme/variables")}
    masked = next(v for v in variables.values() if v["masked"])
    plain = next(v for v in variables.values() if not v["masked"] and not v.get("hidden"))
    await client.delete(f"/groups/acme/variables/{masked['key']}")
    assert "masked or hidden" in (undo(client).refusal(last(client)) or "")
    await client.delete(f"/groups/acme/variables/{plain['key']}")
    await undo(client).undo(last(client))
    assert (await client.get_json(f"/groups/acme/variables/{plain['key']}"))["value"] == plain["value"]
    text = (tmp_path / "journal" / "demo.jsonl").read_text()
    for secret in (masked["value"], plain["value"], ROOT_TOKEN):
        assert secret not in text
    # after a restart the value is gone, and the entry says so
    reread = Journal(tmp_path / "journal" / "demo.jsonl")
    deletion = next(e for e in reread.entries() if e.target.startswith(f"variable {plain['key']}"))
    refusal = UndoService(client, reread).refusal(deletion)
    assert refusal in ("it was undone already", "the variable's value was not kept after labdeck closed")


async def test_a_bulk_job_of_label_changes_is_undone_as_a_whole(client: ApiClient) -> None:
    issues = await client.get_json(f"/{GATEWAY}/issues", {"per_page": 5})
    before = {i["iid"]: sorted(i["labels"]) for i in issues}
    token = current_job.set(("run-1", "Add label urgent"))
    try:
        for issue in issues:
            await client.put_json(f"/{GATEWAY}/issues/{issue['iid']}", {"add_labels": "urgent"})
    finally:
        current_job.reset(token)
    service = undo(client)
    entries = service.job_entries("run-1")
    assert len(entries) == len(issues)
    for entry in entries:
        await service.undo(entry)
    after = {i["iid"]: sorted(i["labels"]) for i in await client.get_json(f"/{GATEWAY}/issues",
                                                                          {"per_page": 5})}
    assert after == before


async def test_the_file_is_private_and_failures_are_journalled(client: ApiClient, tmp_path: Path) -> None:
    with pytest.raises(Exception):  # noqa: B017 - any refusal
        await client.post_json("/users/999999/ban")
    entry = last(client)
    assert not entry.ok and entry.result.startswith("refused: 404")
    path = tmp_path / "journal" / "demo.jsonl"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700


async def test_badge_member_level_and_issue_state_are_undone(client: ApiClient) -> None:
    badge = (await client.get_json("/groups/acme/badges"))[0]
    await client.delete(f"/groups/acme/badges/{badge['id']}")
    await undo(client).undo(last(client))
    again = [b for b in await client.get_json("/groups/acme/badges") if b["link_url"] == badge["link_url"]]
    assert again and again[0]["image_url"] == badge["image_url"] and again[0]["name"] == badge["name"]
    before = await client.get_json("/groups/acme/members/2")
    await client.put_json("/groups/acme/members/2", {"access_level": 50})
    await undo(client).undo(last(client))
    assert (await client.get_json("/groups/acme/members/2"))["access_level"] == before["access_level"]
    issue = (await client.get_json(f"/{GATEWAY}/issues", {"state": "opened", "per_page": 1}))[0]
    await client.put_json(f"/{GATEWAY}/issues/{issue['iid']}", {"state_event": "close"})
    await undo(client).undo(last(client))
    assert (await client.get_json(f"/{GATEWAY}/issues/{issue['iid']}"))["state"] == "opened"


async def test_graphql_queries_are_reads_and_not_journalled(client: ApiClient) -> None:
    """The registry reads tag details with GraphQL queries (a POST): they change nothing, so the journal
    does not list them; a mutation would be journalled like any change."""
    assert client.journal is not None
    before = len(client.journal.entries())
    graphql = client.settings.base_url + "/api/graphql"
    await client.request("POST", graphql, json={"query": "query { currentUser { username } }"})
    assert len(client.journal.entries()) == before
    await client.post_json("/groups/acme/labels", json={"name": "journalled", "color": "#ff0000"})
    assert len(client.journal.entries()) == before + 1


async def test_targets_are_named_by_their_paths_and_changes_kept_in_words(client: ApiClient) -> None:
    """An entry names its target as an operator knows it (`acme/platform/api-gateway#11`, `variable KEY of
    acme`, `@alice of acme`), never by ids (`issue 1#11`, `group 61`), even when the request named ids:
    the owner's path is read once and kept; what the server answered after the change is kept too."""
    group = await client.get_json("/groups/acme")
    project = await client.get_json(f"/{GATEWAY}")
    plain = next(v for v in await client.get_json(f"/groups/{group['id']}/variables")
                 if not v["masked"] and not v.get("hidden"))
    sent = len(client.request_log)
    await client.delete(f"/groups/{group['id']}/variables/{plain['key']}")
    assert last(client).target == f"variable {plain['key']} of acme"
    assert len(client.request_log) - sent == 3  # the snapshot, the deletion, the group's path
    sent = len(client.request_log)
    await client.put_json(f"/groups/{group['id']}/members/2", {"access_level": 40})
    entry = last(client)
    assert entry.target == "@alice of acme" and entry.after["access_level"] == 40
    assert len(client.request_log) - sent == 2  # the group's path is known: not read again
    issues = await client.get_json(f"/projects/{project['id']}/issues", {"state": "opened", "per_page": 1})
    issue = issues[0]
    sent = len(client.request_log)
    await client.put_json(f"/projects/{project['id']}/issues/{issue['iid']}", {"state_event": "close"})
    entry = last(client)
    assert entry.target == f"acme/platform/api-gateway#{issue['iid']}"
    assert (entry.before["state"], entry.after["state"]) == ("opened", "closed")
    assert len(client.request_log) - sent == 2  # the issue's own reference names its project
    text = (client.journal.path).read_text()  # type: ignore[union-attr]
    assert f"group {group['id']}" not in text and f"issue {project['id']}#" not in text


async def test_registry_and_issue_changes_are_named_by_path_against_the_sandbox(client: ApiClient) -> None:
    """Issue 34: a registry deletion names the repository by its path (read before the change), never
    `repository 2 of ...`; a note and a to-do name the issue by its reference, never `projects/58/...`."""
    project = await client.get_json(f"/{GATEWAY}")
    repo = (await client.get_json(f"/projects/{project['id']}/registry/repositories"))[0]
    tag = (await client.get_json(f"/projects/{project['id']}/registry/repositories/{repo['id']}/tags"))[0]
    await client.delete(f"/projects/{project['id']}/registry/repositories/{repo['id']}/tags/{tag['name']}")
    entry = last(client)
    assert (entry.operation, entry.target) == ("delete registry tag", f"{repo['path']}:{tag['name']}")
    issue = (await client.get_json(f"/projects/{project['id']}/issues", {"per_page": 1}))[0]
    await client.post_json(f"/projects/{project['id']}/issues/{issue['iid']}/notes", {"body": "seen"})
    entry = last(client)
    assert (entry.operation, entry.target) == ("comment on issue",
                                               f"acme/platform/api-gateway#{issue['iid']}")
