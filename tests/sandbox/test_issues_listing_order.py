"""Issue listings read a memoised order (issue 16 goal 6): every listing equals filtering the issues then
sorting them (GitLab's order: by value then id in the `sort` direction, missing values last), for every
`order_by`, both directions, global, group and project listings, whichever way the candidates are
gathered; and a write is seen by the next listing."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.routes.issues import listing
from labdeck.sandbox.seed.issues import issues_data

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}


def client_for(app: Any) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test")


async def _ids(client: httpx.AsyncClient, path: str, params: dict[str, Any],
               headers: dict[str, str]) -> list[int]:
    out: list[int] = []
    page = 1
    while True:
        response = await client.get(path, params={**params, "per_page": 100, "page": page}, headers=headers)
        assert response.status_code == 200, response.text
        out += [item["id"] for item in response.json()]
        if not response.headers.get("x-next-page"):
            return out
        page += 1


def _expected(app: Any, order_by: str, descending: bool, user: str, project_ids: set[int] | None,
              archived_too: bool) -> list[int]:
    """The listing the plain way: filter, then sort the survivors."""
    store = app.state.store
    data = issues_data(store)
    viewer = store.user_by_username(user)
    key = listing._order_key(data, order_by)
    rows = []
    for issue in data.issues.values():
        project = store.projects[issue.project_id]
        if project_ids is not None and issue.project_id not in project_ids:
            continue
        if not store.can_read_project(viewer, project) or (project.archived and not archived_too):
            continue
        if issue.confidential and not (viewer.is_admin or viewer.id in (issue.author_id, *issue.assignee_ids)
                                       or store.project_levels(viewer.id).get(project.id, 0) >= 15):
            continue
        rows.append(issue)
    present = sorted((i for i in rows if key(i) is not None), key=lambda i: (key(i), i.id),
                     reverse=descending)
    absent = sorted((i for i in rows if key(i) is None), key=lambda i: i.id, reverse=descending)
    return [i.id for i in present + absent]


@pytest.fixture(scope="module")
def demo() -> Any:
    return create_app(SandboxOptions(scale="demo"))


@pytest.mark.parametrize("few", [0, 50, 10**6])
@pytest.mark.parametrize("order_by", listing.ORDERS)
async def test_every_listing_equals_filter_then_sort(demo: Any, order_by: str, few: int,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(listing, "_FEW_PROJECTS", few)
    store = demo.state.store
    group = store.group_by_path("acme")
    group_projects = {pid for gid in (group.id, *store.descendants(group.id))
                      for pid in store.projects_by_namespace().get(("group", gid), [])}
    project = store.project_by_path("acme/platform/api-gateway")
    async with client_for(demo) as client:
        for sort in ("asc", "desc"):
            params = {"scope": "all", "order_by": order_by, "sort": sort, "state": "all"}
            for user, headers in (("root", ROOT), ("alice", ALICE)):
                got = await _ids(client, "/api/v4/issues", params, headers)
                assert got == _expected(demo, order_by, sort == "desc", user, None, False)
            got = await _ids(client, f"/api/v4/groups/{group.id}/issues", params, ALICE)
            assert got == _expected(demo, order_by, sort == "desc", "alice", group_projects, False)
            got = await _ids(client, f"/api/v4/projects/{project.id}/issues", params, ROOT)
            assert got == _expected(demo, order_by, sort == "desc", "root", {project.id}, True)


async def test_a_new_issue_is_listed_first_at_once() -> None:
    app = create_app(SandboxOptions(scale="demo"))
    project = app.state.store.project_by_path("acme/platform/api-gateway")
    async with client_for(app) as client:
        before = await _ids(client, "/api/v4/issues", {"scope": "all"}, ROOT)
        created = await client.post(f"/api/v4/projects/{project.id}/issues", json={"title": "Brand new"},
                                    headers=ROOT)
        assert created.status_code == 201, created.text
        after = await _ids(client, "/api/v4/issues", {"scope": "all"}, ROOT)
        assert after == [created.json()["id"], *before]
        mine = await _ids(client, f"/api/v4/projects/{project.id}/issues", {}, ROOT)
        assert mine[0] == created.json()["id"]
