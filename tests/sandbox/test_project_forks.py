"""Conformance of the fork routes: forking into the personal namespace or one named by `namespace_id`,
`namespace_path` or the deprecated `namespace`; the asynchronous `import_status`; conflicts and refusals;
the forks listing with its parameters; creating and deleting a fork relationship."""

from __future__ import annotations

from typing import Any

import httpx
from starlette.applications import Starlette

from labdeck.sandbox.clock import ManualClock

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Owner of opensource, Developer in acme
BOB = {**ROOT, "Sudo": "bob"}  # Reporter in acme, Developer in opensource
GATEWAY = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway"
DELAY = 0.05  # the conftest app's async_delay


async def fork(client: httpx.AsyncClient, headers: dict[str, str], **body: Any) -> httpx.Response:
    return await client.post(f"{GATEWAY}/fork", headers=headers, json=body)


async def status_of(client: httpx.AsyncClient, project_id: int) -> str:
    return str((await client.get(f"/api/v4/projects/{project_id}", headers=ROOT)).json()["import_status"])


async def test_fork_into_the_personal_namespace_and_follow_import_status(
        client: httpx.AsyncClient, clock: ManualClock) -> None:
    response = await fork(client, ALICE)
    assert response.status_code == 201
    body = response.json()
    assert body["path_with_namespace"] == "alice/api-gateway" and body["namespace"]["kind"] == "user"
    assert body["import_status"] == "scheduled" and body["forked_from_project"]["path"] == "api-gateway"
    assert body["mr_default_target_self"] is False and body["visibility"] == "public"
    clock.advance(DELAY)
    assert await status_of(client, body["id"]) == "started"
    clock.advance(DELAY)
    assert await status_of(client, body["id"]) == "finished"
    source = (await client.get(GATEWAY, headers=ROOT)).json()
    assert source["forks_count"] == 1


async def test_namespace_by_id_path_and_the_deprecated_form(client: httpx.AsyncClient) -> None:
    group = (await client.get("/api/v4/groups/opensource", headers=ROOT)).json()
    by_id = await fork(client, ALICE, namespace_id=group["id"], name="Gateway A", path="gateway-a")
    assert by_id.status_code == 201 and by_id.json()["path_with_namespace"] == "opensource/gateway-a"
    assert by_id.json()["name"] == "Gateway A"
    by_path = await fork(client, ALICE, namespace_path="opensource", path="gateway-b", name="Gateway B")
    assert by_path.json()["path_with_namespace"] == "opensource/gateway-b"
    deprecated = await fork(client, ALICE, namespace="opensource", path="gateway-c", name="Gateway C")
    assert deprecated.json()["path_with_namespace"] == "opensource/gateway-c"
    deprecated_id = await fork(client, ALICE, namespace=group["id"], path="gateway-d", name="Gateway D")
    assert deprecated_id.json()["path_with_namespace"] == "opensource/gateway-d"


async def test_options_visibility_branches_and_target_self(client: httpx.AsyncClient, clock: ManualClock,
                                                           app: Starlette) -> None:
    response = await fork(client, ALICE, visibility="private", branches="develop",
                          mr_default_target_self=True, description="My copy")
    body = response.json()
    assert body["visibility"] == "private" and body["mr_default_target_self"] is True
    assert body["description"] == "My copy"
    clock.advance(2 * DELAY)
    assert await status_of(client, body["id"]) == "finished"
    repo = app.state.store.areas["repository_tags"].repositories[body["id"]]
    assert set(repo.branches) == {"develop"}
    tags = await client.get(f"/api/v4/projects/{body['id']}/repository/tags", headers=ALICE)
    assert {t["name"] for t in tags.json()} == {"v0.1.0", "v0.2.0", "v1.0.0-rc1"}


async def test_conflicts_are_409(client: httpx.AsyncClient) -> None:
    assert (await fork(client, ALICE)).status_code == 201
    again = await fork(client, ALICE)
    assert again.status_code == 409
    assert again.json() == {"message": {"name": ["has already been taken"],
                                        "path": ["has already been taken"]}}
    louder = await client.post("/api/v4/projects/acme%2Finfra%2Fterraform/fork", headers=ALICE,
                               json={"visibility": "public"})
    assert louder.status_code == 409
    assert louder.json()["message"]["visibility_level"] == [
        "public is not allowed since the fork source project has lower visibility."]


async def test_refusals(client: httpx.AsyncClient) -> None:
    assert (await fork(client, {})).status_code == 401
    hidden = await fork(client, ALICE, namespace_path="hidden-lab")
    assert (hidden.status_code, hidden.json()) == (404, {"message": "404 Namespace Not Found"})
    unknown = await fork(client, ALICE, namespace_id=99999)
    assert unknown.json() == {"message": "404 Namespace Not Found"}
    reporter = await fork(client, BOB, namespace_path="acme")
    assert (reporter.status_code, reporter.json()) == (404, {"message": "404 Target Namespace Not Found"})
    someone_else = await fork(client, ALICE, namespace_path="bob")
    assert someone_else.json() == {"message": "404 Target Namespace Not Found"}
    private = await client.post("/api/v4/projects/hidden-lab%2Fsecrets/fork", headers=ALICE)
    assert private.status_code == 404


async def test_forks_listing_and_its_parameters(client: httpx.AsyncClient) -> None:
    await fork(client, ALICE)
    await fork(client, ALICE, namespace_path="opensource", visibility="internal")
    await fork(client, BOB, visibility="private")
    forks = f"{GATEWAY}/forks"

    async def paths(headers: dict[str, str], **params: Any) -> list[str]:
        response = await client.get(forks, headers=headers, params=params)
        assert response.status_code == 200, response.text
        return [p["path_with_namespace"] for p in response.json()]

    assert await paths(ROOT) == ["bob/api-gateway", "opensource/api-gateway", "alice/api-gateway"]
    assert await paths(ROOT, order_by="id", sort="asc") == ["alice/api-gateway", "opensource/api-gateway",
                                                            "bob/api-gateway"]
    assert await paths(ALICE) == ["opensource/api-gateway", "alice/api-gateway"]  # bob's is private
    assert await paths({}) == ["alice/api-gateway"]  # anonymous: public forks only
    assert await paths(ROOT, visibility="internal") == ["opensource/api-gateway"]
    assert await paths(ALICE, owned="true") == ["opensource/api-gateway", "alice/api-gateway"]
    assert await paths(BOB, membership="true", min_access_level="30") == ["bob/api-gateway",
                                                                        "opensource/api-gateway"]
    assert await paths(ROOT, search="opensource") == []  # search matches name, path, description
    assert await paths(ROOT, archived="true") == []
    assert await paths(ROOT, updated_before="2000-01-01T00:00:00Z") == []
    assert len(await paths(ROOT, updated_after="2000-01-01T00:00:00Z")) == 3
    simple = (await client.get(forks, headers=ALICE, params={"simple": "true"})).json()
    assert "visibility" not in simple[0] and "namespace" in simple[0]
    stats = (await client.get(forks, headers=ALICE, params={"statistics": "true"})).json()
    assert all("statistics" in p for p in stats)
    custom = (await client.get(forks, headers=ROOT, params={"with_custom_attributes": "true"})).json()
    assert custom[0]["custom_attributes"] == []
    plain = (await client.get(forks, headers=ALICE, params={"with_custom_attributes": "true"})).json()
    assert "custom_attributes" not in plain[0]
    bad = await client.get(forks, headers=ROOT, params={"min_access_level": "25"})
    assert (bad.status_code, bad.json()) == (400, {"error": "min_access_level does not have a valid value"})
    bad_order = await client.get(forks, headers=ROOT, params={"order_by": "size"})
    assert bad_order.status_code == 400
    enabled = await client.get(forks, headers=ROOT, params={"with_issues_enabled": "true",
                                                           "with_merge_requests_enabled": "true"})
    assert len(enabled.json()) == 3


async def test_fork_relationship(client: httpx.AsyncClient) -> None:
    labdeck = (await client.get("/api/v4/projects/opensource%2Flabdeck", headers=ROOT)).json()
    dotfiles = "/api/v4/projects/alice%2Fdotfiles"
    created = await client.post(f"{dotfiles}/fork/{labdeck['id']}", headers=ALICE)
    assert created.status_code == 201 and created.json()["forked_from_project"]["id"] == labdeck["id"]
    again = await client.post(f"{dotfiles}/fork/{labdeck['id']}", headers=ALICE)
    assert (again.status_code, again.json()) == (409, {"message": "Project already forked"})
    listed = (await client.get("/api/v4/projects/opensource%2Flabdeck/forks", headers=ALICE)).json()
    assert [p["path_with_namespace"] for p in listed] == ["alice/dotfiles"]
    deleted = await client.delete(f"{dotfiles}/fork", headers=ALICE)
    assert deleted.status_code == 204
    assert "forked_from_project" not in (await client.get(dotfiles, headers=ALICE)).json()
    assert (await client.delete(f"{dotfiles}/fork", headers=ALICE)).status_code == 304
    by_id = await client.post(f"{dotfiles}/fork/{labdeck['id']}", headers=ROOT)
    assert by_id.status_code == 201
    assert (await client.delete(f"{dotfiles}/fork/{labdeck['id']}", headers=ROOT)).status_code == 204


async def test_fork_relationship_needs_owner_or_admin(client: httpx.AsyncClient) -> None:
    labdeck = (await client.get("/api/v4/projects/opensource%2Flabdeck", headers=ROOT)).json()
    handbook = "/api/v4/projects/acme%2Fhandbook"
    assert (await client.post(f"{handbook}/fork/{labdeck['id']}", headers=ALICE)).status_code == 403
    assert (await client.delete(f"{handbook}/fork", headers=ALICE)).status_code == 403
    assert (await client.post(f"{handbook}/fork/99999", headers=ROOT)).status_code == 404
    assert (await client.post(f"{handbook}/fork/{labdeck['id']}", headers=ROOT)).status_code == 201


CONTRACT_FIELDS = (  # GitLab's API docs, "Project (fork listing)"
    "id, description, description_html, default_branch, visibility, ssh_url_to_repo, http_url_to_repo, "
    "web_url, readme_url, tag_list, topics, name, name_with_namespace, path, path_with_namespace, "
    "repository_object_format, issues_enabled, open_issues_count, merge_requests_enabled, jobs_enabled, "
    "wiki_enabled, snippets_enabled, "
    "can_create_merge_request_in, resolve_outdated_diff_discussions, container_registry_enabled, "
    "container_registry_access_level, security_and_compliance_access_level, created_at, updated_at, "
    "last_activity_at, creator_id, namespace, import_status, archived, avatar_url, shared_runners_enabled, "
    "group_runners_enabled, forks_count, star_count, public_jobs, shared_with_groups, "
    "only_allow_merge_if_pipeline_succeeds, allow_merge_on_skipped_pipeline, "
    "restrict_user_defined_variables, "
    "only_allow_merge_if_all_discussions_are_resolved, remove_source_branch_after_merge, "
    "request_access_enabled, "
    "merge_method, squash_option, autoclose_referenced_issues, enforce_auth_checks_on_uploads, "
    "suggestion_commit_message, merge_commit_template, container_registry_image_prefix, _links")


async def test_the_fork_listing_carries_every_contract_field(client: httpx.AsyncClient) -> None:
    made = await client.post(f"{GATEWAY}/fork", headers=ROOT)
    assert made.status_code == 201
    [fork] = (await client.get(f"{GATEWAY}/forks", headers=ROOT)).json()
    assert {f.strip() for f in CONTRACT_FIELDS.split(",")} <= set(fork)
    assert set(fork["namespace"]) >= {"id", "name", "path", "kind", "full_path"}
    assert set(fork["_links"]) == {"self", "issues", "merge_requests", "repo_branches", "labels", "events",
                                   "members", "cluster_agents"}
