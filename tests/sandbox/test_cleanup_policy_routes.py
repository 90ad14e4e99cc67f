"""Cleanup policies in the sandbox over HTTP: the seeded policies, `PUT /projects/:id` validated as GitLab
does, protection rules, and `POST /-/sandbox/clock` running due policies exactly as the planner says."""

from __future__ import annotations

from datetime import datetime, timedelta

import httpx
import pytest
from registry_fixtures import ALICE, API, ROOT, store_of
from starlette.applications import Starlette

from labdeck.domain.cleanup_policy import Policy, PolicyPlanner, RepositoryPlan
from labdeck.domain.registry_cleanup import TagInfo
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.registry import registry_data

GATEWAY = "acme%2Fplatform%2Fapi-gateway"
SEEDED = ("acme/platform/api-gateway", "acme/platform/web-portal", "opensource/labdeck",
          "acme/security/vault")
DAY = 86_400
ATTRIBUTES = "container_expiration_policy_attributes"


async def policy(client: httpx.AsyncClient, path: str) -> Policy:
    response = await client.get(f"{API}/projects/{path.replace('/', '%2F')}", headers=ROOT)
    assert response.status_code == 200
    return Policy.from_json(response.json()["container_expiration_policy"])


async def test_seeded_policies_cover_every_case(client: httpx.AsyncClient) -> None:
    assert (await policy(client, "acme/infra/terraform")).enabled is False
    portal = await policy(client, "acme/platform/web-portal")
    assert portal.enabled and portal.name_regex == "nightly-.*"
    gateway = await policy(client, "acme/platform/api-gateway")
    assert gateway.enabled and gateway.keep_n == 5 and gateway.next_run_at is not None
    default = await policy(client, "hidden-lab/secrets")
    assert default == Policy(next_run_at=default.next_run_at)  # GitLab's default for a new project
    rules = await client.get(f"{API}/projects/{GATEWAY}/registry/protection/tag/rules", headers=ROOT)
    assert rules.json()[0]["tag_name_pattern"] == "pr-1[0-4]"
    assert rules.json()[0]["minimum_access_level_for_delete"] == "maintainer"
    settings = await client.get(f"{API}/application/settings", headers=ROOT)
    assert settings.json()["container_registry_cleanup_tags_service_max_list_size"] == 200


async def test_put_saves_and_restarts_the_interval(app: Starlette, client: httpx.AsyncClient) -> None:
    now = store_of(app).now()
    body = {"container_expiration_policy_attributes": {"enabled": True, "cadence": "14d", "keep_n": 25,
                                                       "older_than": None, "name_regex_keep": "v.*"}}
    response = await client.put(f"{API}/projects/acme%2Finfra%2Fterraform", json=body, headers=ROOT)
    assert response.status_code == 200
    saved = Policy.from_json(response.json()["container_expiration_policy"])
    assert (saved.enabled, saved.cadence, saved.keep_n, saved.older_than) == (True, "14d", 25, None)
    assert saved.next_run_at == now + timedelta(days=14)
    assert await policy(client, "acme/infra/terraform") == saved
    form = await client.put(f"{API}/projects/acme%2Finfra%2Fterraform", headers=ROOT,
                            data={"container_expiration_policy_attributes[keep_n]": "50"})
    assert form.json()["container_expiration_policy"]["keep_n"] == 50


async def test_put_refuses_what_gitlab_refuses(client: httpx.AsyncClient) -> None:
    url = f"{API}/projects/acme%2Finfra%2Fterraform"
    bad = {"container_expiration_policy_attributes": {"cadence": "2d", "keep_n": 3, "older_than": "45d"}}
    response = await client.put(url, json=bad, headers=ROOT)
    assert response.status_code == 400
    assert response.json() == {"message": {
        "container_expiration_policy.cadence": ["is not included in the list"],
        "container_expiration_policy.keep_n": ["is not included in the list"],
        "container_expiration_policy.older_than": ["is not included in the list"]}}
    regex = {"container_expiration_policy_attributes": {"enabled": True, "name_regex": "(a"}}
    message = (await client.put(url, json=regex, headers=ROOT)).json()["message"]
    assert message["container_expiration_policy.name_regex"][0].startswith("not valid RE2 syntax")
    typed = await client.put(url, json={"container_expiration_policy_attributes": {"keep_n": "many"}},
                             headers=ROOT)
    assert typed.json() == {"error": "container_expiration_policy_attributes[keep_n] is invalid"}
    assert (await client.put(url, json=regex, headers=ALICE)).status_code in (403, 404)
    assert (await policy(client, "acme/infra/terraform")).enabled is False  # nothing was saved


async def test_an_enabled_policy_with_a_blank_name_regex_is_refused(client: httpx.AsyncClient) -> None:
    """GitLab validates `name_regex` with `presence: true, if: :enabled?`
    (app/models/container_expiration_policy.rb); `PUT /projects/:id` answers a failed validation with
    `render_validation_error!` (lib/api/projects.rb): 400 and the nested model's errors by attribute."""
    url = f"{API}/projects/acme%2Finfra%2Fterraform"
    refused = {"message": {"container_expiration_policy.name_regex": ["can't be blank"]}}
    for blank in ("", "  ", None):
        body = {"container_expiration_policy_attributes": {"enabled": True, "name_regex": blank}}
        response = await client.put(url, json=body, headers=ROOT)
        assert (response.status_code, response.json()) == (400, refused)
    form = await client.put(url, headers=ROOT, data={f"{ATTRIBUTES}[enabled]": "true",
                                                     f"{ATTRIBUTES}[name_regex]": ""})
    assert (form.status_code, form.json()) == (400, refused)
    assert (await policy(client, "acme/infra/terraform")).enabled is False  # nothing was saved
    off = {"container_expiration_policy_attributes": {"enabled": False, "name_regex": ""}}
    assert (await client.put(url, json=off, headers=ROOT)).status_code == 200  # disabled: no rule


async def test_60d_is_accepted_from_14_4_and_refused_before() -> None:
    """`older_than_options` gained `60d` in 14.4 (commit c7be549c): the sandbox playing 14.4 or later
    stores it, one playing 14.3 refuses it as GitLab 14.3 did (`is not included in the list`)."""
    body = {"container_expiration_policy_attributes": {"older_than": "60d"}}
    for version, status in (("14.4", 200), ("17.6", 200), ("14.3", 400)):
        app = create_app(SandboxOptions(scale="tiny", gitlab_version=version), clock=ManualClock())
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app),
                                     base_url="http://sandbox.test") as http:
            response = await http.put(f"{API}/projects/acme%2Finfra%2Fterraform", json=body, headers=ROOT)
            assert response.status_code == status, version
            if status == 200:
                assert response.json()["container_expiration_policy"]["older_than"] == "60d"
                assert (await policy(http, "acme/infra/terraform")).older_than == "60d"
            else:
                assert response.json() == {"message": {
                    "container_expiration_policy.older_than": ["is not included in the list"]}}


async def test_clock_needs_an_administrator_and_a_number(client: httpx.AsyncClient) -> None:
    async def advance(value: str, headers: dict[str, str]) -> int:
        return (await client.post("/-/sandbox/clock", params={"advance": value}, headers=headers)).status_code

    assert await advance("10", ALICE) == 403
    assert await advance("soon", ROOT) == 400
    assert await advance("-5", ROOT) == 400
    assert await advance("0", ROOT) == 200


def plans_at(app: Starlette, path: str, pol: Policy, when: datetime) -> dict[int, RepositoryPlan]:
    store = store_of(app)
    project = store.project_by_path(path)
    assert project is not None
    from labdeck.sandbox.seed.cleanup_policy import protected_patterns
    out = {}
    for repo in registry_data(store).of_projects({project.id}):
        infos = [TagInfo(t.name, t.created_at, t.digest, t.total_size) for t in repo.tags.values()]
        out[repo.id] = PolicyPlanner(infos).plan(pol, when, protected=protected_patterns(store, project.id))
    return out


async def test_the_run_deletes_exactly_what_the_planner_said(app: Starlette, client: httpx.AsyncClient,
                                                             clock: ManualClock) -> None:
    when = store_of(app).now() + timedelta(seconds=DAY)
    expected = {}
    for path in SEEDED:
        pol = await policy(client, path)
        expected.update({rid: (path, plan) for rid, plan in plans_at(app, path, pol, when).items()})
    response = await client.post("/-/sandbox/clock", params={"advance": str(DAY)}, headers=ROOT)
    assert response.status_code == 200
    runs = {entry["repository_id"]: entry for entry in response.json()["runs"]}
    assert set(runs) == set(expected)  # every due policy's repositories ran; not terraform's
    truncated = 0
    for rid, (path, plan) in expected.items():
        deleted = [name for run in runs[rid]["runs"] for name in run]
        assert sorted(deleted) == sorted(t.name for t in plan.to_delete()), path
        assert len(runs[rid]["runs"]) >= plan.runs
        if plan.truncated:
            truncated += 1
            assert all(len(run) <= plan.max_list_size for run in runs[rid]["runs"])
    assert truncated == 1  # the vault's builds repository hits the per-run limit
    assert any(plan.deleted_count for _, plan in expected.values())
    portal = [plan for path, plan in expected.values() if path == "acme/platform/web-portal"]
    assert portal and all(plan.deleted_count == 0 and plan.candidates == 0 for plan in portal)
    # the cleanup fields and the next run
    repos = await client.get(f"{API}/projects/{GATEWAY}/registry/repositories", headers=ROOT)
    assert {r["cleanup_policy_started_at"] for r in repos.json()} == {
        when.strftime("%Y-%m-%dT%H:%M:%S.000Z")}
    gateway = await policy(client, "acme/platform/api-gateway")
    assert gateway.next_run_at == when + timedelta(days=1)
    again = await client.post("/-/sandbox/clock", params={"advance": "60"}, headers=ROOT)
    assert again.json()["runs"] == []  # nothing is due a minute later


async def test_an_invalid_policy_is_disabled_when_it_comes_to_run(app: Starlette,
                                                                  client: httpx.AsyncClient) -> None:
    from labdeck.sandbox.seed.cleanup_policy import policy_data
    store = store_of(app)
    project = store.project_by_path("opensource/labdeck")
    assert project is not None
    data = policy_data(store)
    data.policies[project.id] = Policy(enabled=True, name_regex="(a", next_run_at=store.now())
    response = await client.post("/-/sandbox/clock", params={"advance": "1"}, headers=ROOT)
    assert {"project_id": project.id, "disabled": "invalid policy"} in response.json()["runs"]
    assert (await policy(client, "opensource/labdeck")).enabled is False


async def test_group_listings_encode_each_project_once_until_the_store_changes(
        client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A group's project listing reuses each record's encoded form (as `/projects` does), so the pages of a
    500-project group asked for at once cost the sandbox their slices, not a JSON encoding per project;
    a change (here a policy saved) is in the next listing."""
    from labdeck.sandbox.routes.projects import projects as routes

    built: list[int] = []
    real = routes.project_json
    monkeypatch.setattr(routes, "project_json", lambda store, project, base, **kw: (
        built.append(project.id), real(store, project, base, **kw))[1])
    params = {"include_subgroups": "true", "with_shared": "false", "statistics": "true", "per_page": 100}

    async def listing() -> dict[str, dict[str, object]]:
        answer = await client.get(f"{API}/groups/acme/projects", params=params, headers=ROOT)
        assert answer.status_code == 200
        return {p["path_with_namespace"]: p for p in answer.json()}

    first = await listing()
    assert built and len(built) == len(first) and "statistics" in first["acme/infra/terraform"]
    built.clear()
    assert await listing() == first and built == []
    body = {"container_expiration_policy_attributes": {"enabled": True}}
    assert (await client.put(f"{API}/projects/acme%2Finfra%2Fterraform", json=body,
                             headers=ROOT)).status_code == 200
    changed = await listing()
    assert changed["acme/infra/terraform"]["container_expiration_policy"]["enabled"] is True  # type: ignore[index]


async def test_answers_are_dated_by_the_sandbox_clock(app: Starlette, client: httpx.AsyncClient) -> None:
    """`Date` tells the sandbox's own time, moved by `POST /-/sandbox/clock` like the runs it makes, on
    API answers, refusals and the clock endpoint alike (one header, never uvicorn's wall time beside it)."""
    from email.utils import parsedate_to_datetime

    def told(answer: httpx.Response) -> datetime:
        assert len(answer.headers.get_list("date")) == 1
        return parsedate_to_datetime(answer.headers["date"])

    before = store_of(app).now()
    assert abs((told(await client.get(f"{API}/version", headers=ROOT)) - before).total_seconds()) < 1.5
    assert (await client.post("/-/sandbox/clock", params={"advance": str(30 * DAY)},
                              headers=ROOT)).status_code == 200
    later = told(await client.get(f"{API}/projects/{GATEWAY}", headers=ROOT))
    assert abs((later - (before + timedelta(days=30))).total_seconds()) < 1.5
    assert told(await client.get(f"{API}/projects/nope%2Fnope", headers=ROOT)) == later  # a 404 too


async def test_the_seeded_60d_policy_follows_the_version_played(client: httpx.AsyncClient) -> None:
    """web-portal's policy holds `older_than: 60d` (GitLab 14.4+); a sandbox playing 14.3 seeds 90d, a
    value that version has, so every seeded policy is one the version played could hold."""
    assert (await policy(client, "acme/platform/web-portal")).older_than == "60d"
    app = create_app(SandboxOptions(scale="tiny", gitlab_version="14.3"), clock=ManualClock())
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://sandbox.test") as old:
        assert (await policy(old, "acme/platform/web-portal")).older_than == "90d"
