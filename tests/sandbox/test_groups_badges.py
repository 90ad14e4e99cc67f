"""Group badges: list with the case-sensitive name filter, CRUD, rendering of every placeholder GitLab
documents from the group's first project by creation date, and http(s)-only URLs (GitLab's API docs,
`doc/api/group_badges.md`, GitLab's `Badge` URL validation)."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ROOT, call
from starlette.applications import Starlette

from labdeck.sandbox.seed.git_history import project_repository

TEMPLATE = "https://x.example/%{project_path}/%{project_id}/%{default_branch}/%{commit_sha}"


async def test_list_and_case_sensitive_name_filter(client: httpx.AsyncClient) -> None:
    listed = (await call(client, "GET", "/groups/acme/badges", ROOT)).json()
    assert [b["name"] for b in listed] == ["pipeline", "Coverage"]
    assert (
        set(listed[0])
        == {"name", "id", "link_url", "image_url", "rendered_link_url", "rendered_image_url", "kind"}
        and listed[0]["kind"] == "group"
    )
    exact = (await call(client, "GET", "/groups/acme/badges", ROOT, params={"name": "Coverage"})).json()
    assert [b["name"] for b in exact] == ["Coverage"]
    other_case = (await call(client, "GET", "/groups/acme/badges", ROOT, params={"name": "coverage"})).json()
    assert other_case == []


async def test_placeholders_come_from_the_first_project_by_creation_date(
    app: Starlette, client: httpx.AsyncClient
) -> None:
    store = app.state.store
    handbook, legacy = store.project_by_path("acme/handbook"), store.project_by_path("acme/legacy-app")
    legacy.created_at = handbook.created_at.replace(year=handbook.created_at.year - 1)  # legacy-app is older
    store.touch()
    rendered = await call(
        client,
        "GET",
        "/groups/acme/badges/render",
        ROOT,
        params={"link_url": TEMPLATE, "image_url": "https://i.example/%{project_id}.svg"},
    )
    sha = project_repository(store, legacy).branches["main"]  # the default branch's last commit
    assert rendered.json() == {
        "link_url": TEMPLATE,
        "image_url": "https://i.example/%{project_id}.svg",
        "rendered_link_url": f"https://x.example/acme/legacy-app/{legacy.id}/main/{sha}",
        "rendered_image_url": f"https://i.example/{legacy.id}.svg",
    }


async def test_placeholders_stay_when_the_group_has_no_project(client: httpx.AsyncClient) -> None:
    made = await call(client, "POST", "/groups", ROOT, json={"name": "Empty", "path": "empty"})
    assert made.status_code == 201
    rendered = await call(
        client,
        "GET",
        "/groups/empty/badges/render",
        ROOT,
        params={"link_url": TEMPLATE, "image_url": TEMPLATE},
    )
    assert rendered.json()["rendered_link_url"] == TEMPLATE
    missing = await call(client, "GET", "/groups/empty/badges/render", ROOT, params={"link_url": "x"})
    assert (missing.status_code, missing.json()) == (400, {"error": "image_url is missing"})


async def test_badge_crud(client: httpx.AsyncClient) -> None:
    made = await call(
        client,
        "POST",
        "/groups/opensource/badges",
        ALICE,
        json={"link_url": "https://l/%{project_path}", "image_url": "https://i", "name": "docs"},
    )
    assert made.status_code == 201
    badge = made.json()
    assert badge["rendered_link_url"] == "https://l/opensource/labdeck"
    got = await call(client, "GET", f"/groups/opensource/badges/{badge['id']}", ALICE)
    assert got.json() == badge
    updated = await call(
        client, "PUT", f"/groups/opensource/badges/{badge['id']}", ALICE, json={"image_url": "https://j"}
    )
    assert (updated.json()["image_url"], updated.json()["link_url"]) == (
        "https://j",
        "https://l/%{project_path}",
    )
    assert (
        await call(client, "DELETE", f"/groups/opensource/badges/{badge['id']}", ALICE)
    ).status_code == 204
    gone = await call(client, "GET", f"/groups/opensource/badges/{badge['id']}", ALICE)
    assert (gone.status_code, gone.json()) == (404, {"message": "404 Badge Not Found"})


async def test_badge_rules(client: httpx.AsyncClient) -> None:
    missing = await call(client, "POST", "/groups/acme/badges", ROOT, json={"name": "x"})
    assert missing.json() == {"error": "link_url is missing, image_url is missing"}
    refused = await call(
        client, "POST", "/groups/acme/badges", ALICE, json={"link_url": "a", "image_url": "b"}
    )
    assert refused.status_code == 403
    acme_badge = (await call(client, "GET", "/groups/acme/badges", ROOT)).json()[0]["id"]
    elsewhere = await call(client, "GET", f"/groups/opensource/badges/{acme_badge}", ROOT)
    assert elsewhere.status_code == 404


ALL = ("https://x.example/%{project_path}|%{project_title}|%{project_name}|%{project_id}|%{project_namespace}"
       "|%{group_name}|%{gitlab_server}|%{gitlab_pages_domain}|%{default_branch}|%{commit_sha}|%{latest_tag}")


async def test_every_documented_placeholder_is_rendered(app: Starlette, client: httpx.AsyncClient) -> None:
    store = app.state.store
    gateway = store.project_by_path("acme/platform/api-gateway")
    rendered = (await call(client, "GET", "/groups/acme%2Fplatform/badges/render", ROOT,
                           params={"link_url": ALL, "image_url": "https://i.example/%{latest_tag}.svg"})).json()
    repo = project_repository(store, gateway)
    latest = max(repo.tags.values(), key=lambda t: (repo.commits[t.commit_id].created_at, t.name)).name
    assert rendered["rendered_link_url"] == "https://x.example/" + "|".join((
        "acme/platform/api-gateway", gateway.name, "api-gateway", str(gateway.id), "acme/platform",
        store.group_by_path("acme").name, "sandbox.test", "pages.sandbox.test", "main",
        repo.branches["main"], latest))
    assert rendered["rendered_image_url"] == f"https://i.example/{latest}.svg"
    assert "%{" not in rendered["rendered_link_url"]


BLOCKED = {"message": {"link_url": ["is blocked: Only allowed schemes are http, https"]}}


async def test_link_and_image_urls_must_be_http_or_https(client: httpx.AsyncClient) -> None:
    created = await call(client, "POST", "/groups/acme/badges", ROOT,
                         json={"link_url": "javascript:alert(1)", "image_url": "https://i.example/b.svg"})
    assert (created.status_code, created.json()) == (400, BLOCKED)
    both = await call(client, "POST", "/groups/acme/badges", ROOT,
                      json={"link_url": "ftp://x.example/a", "image_url": "file:///etc/passwd"})
    assert both.status_code == 400 and set(both.json()["message"]) == {"link_url", "image_url"}
    badge = (await call(client, "GET", "/groups/acme/badges", ROOT)).json()[0]
    updated = await call(client, "PUT", f"/groups/acme/badges/{badge['id']}", ROOT,
                         json={"link_url": "data:text/html,hi"})
    assert (updated.status_code, updated.json()) == (400, BLOCKED)
    rendered = await call(client, "GET", "/groups/acme/badges/render", ROOT,
                          params={"link_url": "%{project_path}", "image_url": "https://i.example/x.svg"})
    assert (rendered.status_code, rendered.json()) == (400, BLOCKED)
    fine = await call(client, "POST", "/groups/acme/badges", ROOT,
                      json={"link_url": "HTTP://x.example/%{project_id}", "image_url": "https://i.example/b"})
    assert fine.status_code == 201
