"""The names issues use, listed per scope as GitLab does: a project's labels (with its groups' labels), a
group's labels with `only_group_labels=false` (its projects' labels too), a group's milestones with
`include_descendants` (its projects' milestones too); `search` on each."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ROOT, call


def names(response: httpx.Response, field: str = "name") -> list[str]:
    assert response.status_code == 200, response.text
    return [row[field] for row in response.json()]


async def test_project_labels_with_its_groups_labels(client: httpx.AsyncClient) -> None:
    path = "/projects/acme%2Fplatform%2Fapi-gateway/labels"
    found = names(await call(client, "GET", path, ROOT))
    assert {"backend", "good first issue", "wontfix"} <= set(found)  # the project's own
    assert {"api", "feature"} <= set(found)  # acme/platform's and acme's
    own = names(await call(client, "GET", path, ROOT, params={"include_ancestor_groups": "false"}))
    assert "api" not in own and "backend" in own
    rows = (await call(client, "GET", path, ROOT, params={"search": "GOOD"})).json()
    assert [(r["name"], r["is_project_label"]) for r in rows] == [("good first issue", True)]
    assert names(await call(client, "GET", path, ROOT, params={"search": "nosuchlabel"})) == []


async def test_project_labels_need_read_access(client: httpx.AsyncClient) -> None:
    response = await call(client, "GET", "/projects/999999/labels", ROOT)
    assert response.status_code == 404


async def test_group_labels_with_project_labels(client: httpx.AsyncClient) -> None:
    only_group = names(await call(client, "GET", "/groups/acme/labels", ROOT, params={"search": "back"}))
    assert only_group == []
    params = {"search": "back", "only_group_labels": "false", "include_descendant_groups": "true"}
    assert names(await call(client, "GET", "/groups/acme/labels", ROOT, params=params)) == ["backend"]
    params = {"only_group_labels": "false", "include_descendant_groups": "true", "per_page": "100"}
    everything = names(await call(client, "GET", "/groups/acme/labels", ROOT, params=params))
    assert {"api", "bug", "backend", "ux"} <= set(everything)


async def test_group_milestones_with_descendants(client: httpx.AsyncClient) -> None:
    assert names(await call(client, "GET", "/groups/acme/milestones", ROOT), "title") == []
    params = {"include_descendants": "true", "search": "v2", "per_page": "100"}
    below = (await call(client, "GET", "/groups/acme/milestones", ROOT, params=params)).json()
    assert below and {m["title"] for m in below} == {"v2.0"}
    closed = {"include_descendants": "true", "state": "closed", "per_page": "100"}
    assert {m["title"] for m in (await call(client, "GET", "/groups/acme/milestones", ALICE,
                                            params=closed)).json()} <= {"v1.0"}
    exact = {"include_descendants": "true", "title": "Backlog"}
    assert set(names(await call(client, "GET", "/groups/acme/milestones", ROOT, params=exact), "title")) \
        == {"Backlog"}
