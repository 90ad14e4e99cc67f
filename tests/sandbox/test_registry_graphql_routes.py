"""The sandbox's GraphQL endpoint over HTTP (`POST /api/graphql`), as GitLab answers: the tag connection's
shape and GitLab's types, cursor pagination capped at 20, `tagDetails`, errors in GraphQL's shape, a
repository the caller may not see as null, auth (401 `Invalid token`, job tokens anonymous), the 10,000
character limit, Apollo batching, latency like every API path, and `--no-graphql` (404)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from registry_fixtures import ALICE, GATEWAY, JOB, ROOT, add_known_repository, store_of
from starlette.applications import Starlette

from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.routes.graphql import TAGS_MAX_PAGE_SIZE
from labdeck.sandbox.seed.registry import Tag, add_repository

TAGS = """query($id: ContainerRepositoryID!, $first: Int, $after: String) {
  containerRepository(id: $id) { id path tagsCount
    tags(first: $first, after: $after) {
      nodes { name path location digest revision shortRevision createdAt publishedAt totalSize }
      pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } }"""


async def gql(client: httpx.AsyncClient, query: str, variables: dict[str, Any] | None = None,
              headers: dict[str, str] | None = None) -> httpx.Response:
    return await client.post("/api/graphql", json={"query": query, "variables": variables or {}},
                             headers=ROOT if headers is None else headers)


def gid(repo_id: int) -> str:
    return f"gid://gitlab/ContainerRepository/{repo_id}"


async def test_tags_connection_has_gitlabs_shape_and_types(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await gql(client, TAGS, {"id": gid(repo.id), "first": 100})
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    body = response.json()
    assert set(body) == {"data"}
    details = body["data"]["containerRepository"]
    assert details["id"] == gid(repo.id) and details["path"] == f"{GATEWAY}/known"
    assert details["tagsCount"] == 7
    nodes = details["tags"]["nodes"]
    assert [n["name"] for n in nodes] == sorted(t.name for t in repo.tags.values())
    latest = next(n for n in nodes if n["name"] == "latest")
    tag = repo.tags["latest"]
    assert latest["digest"] == tag.digest and latest["totalSize"] == "100"  # BigInt: a string
    assert latest["createdAt"] == tag.created_at.strftime("%Y-%m-%dT%H:%M:%SZ")  # Time: to the second
    assert latest["path"] == f"{GATEWAY}/known:latest"
    assert latest["location"] == f"registry.sandbox.test/{GATEWAY}/known:latest"
    assert latest["shortRevision"] == tag.revision[:9]
    assert next(n for n in nodes if n["name"] == "buildcache")["createdAt"] is None
    assert details["tags"]["pageInfo"]["hasNextPage"] is False


async def test_cursor_pagination_is_capped_at_20_and_reaches_every_tag(app: Starlette,
                                                                       client: httpx.AsyncClient) -> None:
    store = store_of(app)
    project = store.project_by_path(GATEWAY)
    tags = [Tag(f"t-{i:03d}", None, f"sha256:{i:064x}", f"{i:040x}", i) for i in range(53)]
    repo = add_repository(store, project, "many", tags)
    seen: list[str] = []
    after = None
    pages = 0
    while True:
        data = (await gql(client, TAGS, {"id": gid(repo.id), "first": 100, "after": after})).json()["data"]
        connection = data["containerRepository"]["tags"]
        pages += 1
        assert len(connection["nodes"]) <= TAGS_MAX_PAGE_SIZE
        assert connection["pageInfo"]["hasPreviousPage"] is (after is not None)
        seen += [n["name"] for n in connection["nodes"]]
        if not connection["pageInfo"]["hasNextPage"]:
            break
        after = connection["pageInfo"]["endCursor"]
    assert pages == 3 and seen == [t.name for t in tags]


async def test_tag_details_by_name_with_aliases(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    query = """query($id: ContainerRepositoryID!) { containerRepository(id: $id) {
      a: tagDetails(name: "v1.0.0") { name digest totalSize } b: tagDetails(name: "gone") { name } } }"""
    data = (await gql(client, query, {"id": gid(repo.id)})).json()["data"]["containerRepository"]
    assert data["a"] == {"name": "v1.0.0", "digest": repo.tags["v1.0.0"].digest, "totalSize": "200"}
    assert data["b"] is None


async def test_errors_have_graphqls_shape(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    response = await gql(client, '{ containerRepository(id: "' + gid(repo.id) + '") { nope } }')
    assert response.status_code == 200
    body = response.json()
    assert "data" not in body
    error = body["errors"][0]
    assert "nope" in error["message"] and error["locations"][0]["line"] == 1
    wrong = await gql(client, TAGS, {"id": "gid://gitlab/Project/1"})
    assert "does not represent an instance of ContainerRepository" in wrong.json()["errors"][0]["message"]
    bad = await gql(client, TAGS, {"id": "nope"})
    assert "is not a valid Global ID" in bad.json()["errors"][0]["message"]
    empty = await client.post("/api/graphql", json={"query": ""}, headers=ROOT)
    assert empty.json() == {"errors": [{"message": "No query string was present"}]}


async def test_a_missing_or_unreadable_repository_is_null(app: Starlette, client: httpx.AsyncClient) -> None:
    store = store_of(app)
    missing = await gql(client, TAGS, {"id": gid(999_999)})
    assert missing.status_code == 200 and missing.json() == {"data": {"containerRepository": None}}
    hidden = store.project_by_path("hidden-lab/secrets")
    alice = store.user_by_username("alice")
    assert hidden is not None and not store.can_read_project(alice, hidden)
    repo = add_repository(store, hidden, "secret", [])
    as_alice = await gql(client, TAGS, {"id": gid(repo.id)}, ALICE)
    assert as_alice.json() == {"data": {"containerRepository": None}}
    as_root = await gql(client, TAGS, {"id": gid(repo.id)})
    assert as_root.json()["data"]["containerRepository"]["tagsCount"] == 0


async def test_auth_as_gitlab(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    bad = await gql(client, TAGS, {"id": gid(repo.id)}, {"PRIVATE-TOKEN": "glpat-wrong"})
    assert bad.status_code == 401 and bad.json() == {"errors": [{"message": "Invalid token"}]}
    bearer = await gql(client, TAGS, {"id": gid(repo.id)}, {"Authorization": "Bearer glpat-sandbox-root"})
    assert bearer.json()["data"]["containerRepository"]["tagsCount"] == 7
    store = store_of(app)
    private = store.projects[repo.project_id].visibility != "public"
    job = await gql(client, TAGS, {"id": gid(repo.id)}, JOB)  # not a GraphQL credential: anonymous
    assert job.status_code == 200
    if private:
        assert job.json() == {"data": {"containerRepository": None}}
    store.users[store.user_by_username("alice").id].state = "blocked"
    blocked = await gql(client, TAGS, {"id": gid(repo.id)}, ALICE)
    assert blocked.status_code == 403
    assert blocked.json() == {"errors": [{"message": "API not accessible for user"}]}


async def test_query_size_limit_and_batching(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    large = await client.post("/api/graphql", json={"query": "{ " + " " * 10_001 + "}"}, headers=ROOT)
    assert large.status_code == 422 and large.json() == {"errors": [{"message": "Query too large"}]}
    batch = await client.post("/api/graphql", headers={**ROOT, "Content-Type": "application/json"},
                              content=json.dumps([{"query": TAGS, "variables": {"id": gid(repo.id)}},
                                                  {"query": TAGS, "variables": {"id": gid(999_999)}}]))
    assert batch.status_code == 200
    first, second = batch.json()
    assert first["data"]["containerRepository"]["tagsCount"] == 7
    assert second == {"data": {"containerRepository": None}}


async def test_without_graphql_the_endpoint_is_404() -> None:
    app = create_app(SandboxOptions(scale="tiny", graphql=False))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test") as http:
        response = await gql(http, TAGS, {"id": gid(1)})
        assert response.status_code == 404
        assert (await http.get("/api/v4/version", headers=ROOT)).status_code == 200


async def test_graphql_gets_the_rate_limit_headers_of_every_api_path(client: httpx.AsyncClient) -> None:
    response = await gql(client, "query($id: ContainerRepositoryID!) { containerRepository(id: $id) { id } }",
                         {"id": gid(1)})
    assert "ratelimit-remaining" in response.headers


async def test_pages_see_a_tag_replaced_in_place(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)
    before = (await gql(client, TAGS, {"id": gid(repo.id)})).json()["data"]["containerRepository"]
    old = repo.tags["latest"]
    repo.tags["latest"] = Tag("latest", old.created_at, "sha256:" + "9" * 64, old.revision, 1)
    after = (await gql(client, TAGS, {"id": gid(repo.id)})).json()["data"]["containerRepository"]
    digests = {n["name"]: n["digest"] for n in after["tags"]["nodes"]}
    assert digests["latest"] == "sha256:" + "9" * 64 != old.digest
    assert len(after["tags"]["nodes"]) == len(before["tags"]["nodes"])
    rest = await client.get(f"/api/v4/projects/{repo.project_id}/registry/repositories/{repo.id}/tags",
                            headers=ROOT)
    assert [t["name"] for t in rest.json()] == [n["name"] for n in after["tags"]["nodes"]]


async def test_complexity_limit_as_gitlab_counts_it(app: Starlette, client: httpx.AsyncClient) -> None:
    repo = add_known_repository(app)

    def batch(size: int) -> str:
        one = "{ name digest createdAt publishedAt totalSize }"
        fields = " ".join(f't{i}: tagDetails(name: "latest") {one}' for i in range(size))
        return f'{{ containerRepository(id: "{gid(repo.id)}") {{ {fields} }} }}'

    fits = (await gql(client, batch(41), headers=ALICE)).json()  # 1 + 41 x 6 = 247
    assert "errors" not in fits
    over = (await gql(client, batch(42), headers=ALICE)).json()  # 253
    message = "Query has complexity of 253, which exceeds max complexity of 250"
    assert over == {"errors": [{"message": message}]}
    admin = (await gql(client, batch(42))).json()  # root: 300
    assert "errors" not in admin


async def test_a_batch_of_queries_shares_one_complexity_limit(app: Starlette,
                                                             client: httpx.AsyncClient) -> None:
    """graphql-ruby sums a multiplex's complexity against the same limit: batching cannot get around it."""
    repo = add_known_repository(app)
    fields = " ".join(f't{i}: tagDetails(name: "latest") {{ digest }}' for i in range(30))
    query = f'{{ containerRepository(id: "{gid(repo.id)}") {{ {fields} }} }}'  # 1 + 30 x 2 = 61 each

    async def batch(size: int) -> Any:
        answer = await client.post("/api/graphql", headers={**ALICE, "Content-Type": "application/json"},
                                   content=json.dumps([{"query": query}] * size))
        assert answer.status_code == 200
        return answer.json()

    assert all("errors" not in one for one in await batch(4))  # 244
    message = "Query has complexity of 305, which exceeds max complexity of 250"
    assert await batch(5) == [{"errors": [{"message": message}]}] * 5
