"""Conformance of the project wiki routes: listing with and without content, slugs with a directory part,
create/update/delete with their validation, permissions, and attachment uploads."""

from __future__ import annotations

import httpx

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}  # Developer (30) in acme
WIKIS = "/api/v4/projects/acme%2Fplatform%2Fapi-gateway/wikis"


async def test_list_without_and_with_content(client: httpx.AsyncClient) -> None:
    plain = (await client.get(WIKIS)).json()  # a public project: no auth needed
    assert [p["slug"] for p in plain] == ["Getting-started", "docs/faq", "docs/setup", "home"]
    assert all("content" not in p for p in plain)
    assert plain[0] == {"format": "markdown", "slug": "Getting-started", "title": "Getting started",
                        "encoding": "UTF-8"}
    full = (await client.get(WIKIS, params={"with_content": "true"})).json()
    assert full[3]["content"].startswith("# API Gateway")


async def test_read_by_url_encoded_slug_with_a_directory(client: httpx.AsyncClient) -> None:
    response = await client.get(f"{WIKIS}/docs%2Fsetup")
    assert response.status_code == 200
    assert response.json() == {"format": "asciidoc", "slug": "docs/setup", "title": "setup",
                               "encoding": "UTF-8", "content": "= Setup\n\nInstall the gateway."}
    missing = await client.get(f"{WIKIS}/docs%2Fnope")
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Wiki Page Not Found"})


async def test_create_in_every_format_and_reject_duplicates(client: httpx.AsyncClient) -> None:
    for fmt in ("markdown", "rdoc", "asciidoc", "org"):
        response = await client.post(WIKIS, headers=ALICE,
                                     json={"title": f"notes/{fmt} page", "content": "x", "format": fmt})
        assert response.status_code == 201
        assert response.json() == {"format": fmt, "slug": f"notes/{fmt}-page", "title": f"{fmt} page",
                                   "encoding": "UTF-8", "content": "x"}
    default = await client.post(WIKIS, headers=ALICE, data={"title": "Plain", "content": "y"})
    assert default.json()["format"] == "markdown"
    again = await client.post(WIKIS, headers=ALICE, json={"title": "Plain", "content": "z"})
    assert again.status_code == 400
    assert again.json() == {"message": "Duplicate page: A page with that title already exists"}


async def test_create_validation(client: httpx.AsyncClient) -> None:
    none = await client.post(WIKIS, headers=ROOT, json={})
    assert (none.status_code, none.json()) == (400, {"error": "content is missing, title is missing"})
    bad = await client.post(WIKIS, headers=ROOT, json={"title": "a", "content": "b", "format": "html"})
    assert (bad.status_code, bad.json()) == (400, {"error": "format does not have a valid value"})
    anonymous = await client.post(WIKIS, json={"title": "a", "content": "b"})
    assert anonymous.status_code == 401
    reporter = await client.post(WIKIS, headers={**ROOT, "Sudo": "bob"}, json={"title": "a", "content": "b"})
    assert (reporter.status_code, reporter.json()) == (403, {"message": "403 Forbidden"})


async def test_update_needs_one_field_and_keeps_the_directory(client: httpx.AsyncClient) -> None:
    empty = await client.put(f"{WIKIS}/docs%2Ffaq", headers=ALICE, json={})
    assert empty.status_code == 400
    assert empty.json() == {"error": "content, title, format are missing, at least one parameter must be "
                                     "provided"}
    content = await client.put(f"{WIKIS}/docs%2Ffaq", headers=ALICE, json={"content": "new"})
    assert content.json()["content"] == "new" and content.json()["slug"] == "docs/faq"
    renamed = await client.put(f"{WIKIS}/docs%2Ffaq", headers=ALICE, json={"title": "Questions"})
    assert renamed.json()["slug"] == "docs/Questions" and renamed.json()["title"] == "Questions"
    assert (await client.get(f"{WIKIS}/docs%2Ffaq")).status_code == 404
    clash = await client.put(f"{WIKIS}/docs%2FQuestions", headers=ALICE, json={"title": "setup"})
    assert clash.status_code == 400 and "Duplicate page" in clash.json()["message"]
    missing = await client.put(f"{WIKIS}/nope", headers=ALICE, json={"content": "x"})
    assert missing.status_code == 404


async def test_delete_answers_204_for_maintainers_only(client: httpx.AsyncClient) -> None:
    developer = await client.delete(f"{WIKIS}/home", headers=ALICE)
    assert developer.status_code == 403
    deleted = await client.delete(f"{WIKIS}/home", headers=ROOT)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert (await client.get(f"{WIKIS}/home")).status_code == 404


async def test_attachment_upload(client: httpx.AsyncClient) -> None:
    image = await client.post(f"{WIKIS}/attachments", headers=ALICE, files={"file": ("diagram.png", b"PNG")})
    assert image.status_code == 201
    body = image.json()
    assert body["file_name"] == "diagram.png" and body["branch"] == "main"
    assert body["file_path"].startswith("uploads/") and body["file_path"].endswith("/diagram.png")
    assert body["link"] == {"url": body["file_path"], "markdown": f"![diagram]({body['file_path']})"}
    other = await client.post(f"{WIKIS}/attachments", headers=ALICE, data={"branch": "wiki-work"},
                              files={"file": ("notes.txt", b"hello")})
    assert other.json()["branch"] == "wiki-work"
    assert other.json()["link"]["markdown"] == f"[notes.txt]({other.json()['file_path']})"
    assert other.json()["file_path"] != body["file_path"]
    missing = await client.post(f"{WIKIS}/attachments", headers=ALICE, data={"branch": "main"})
    assert (missing.status_code, missing.json()) == (400, {"error": "file is missing"})


async def test_private_project_wiki_is_hidden(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects/hidden-lab%2Fsecrets/wikis", headers=ALICE)
    assert (response.status_code, response.json()) == (404, {"message": "404 Project Not Found"})
