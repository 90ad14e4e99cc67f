"""Conformance of `GET /issues` and `GET /groups/:id/issues` (GitLab's API docs, "Issues"): every
listing parameter and its rule, against the handcrafted issues every scale seeds
(`labdeck.sandbox.seed.issues_seed.FIXED`)."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import httpx
import pytest

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
ALL = {"scope": "all", "per_page": 100}

GATEWAY_502 = "Gateway returns 502 under load"
RATE_LIMIT = "Add rate limit headers"
LEAKED = "Leaked token in debug logs"
OUTAGE = "Outage on the edge cluster"
RETRY = "Document the retry policy"
DARK = "Dark mode"
LOGIN = "Login button misaligned"
CHECKOUT = "Checkout flow end to end"
PROVIDER = "Upgrade the provider to 5.x"
ROTATE = "Rotate the root key"
TYPO = "Fix typo in onboarding"
LEGACY = "Migrate off the legacy app"
KEYSET = "Support keyset pagination"
SECRET = "Secret plans"
VIM = "Sync vim config"
WELCOME = "Welcome to the sandbox"
EVERY = {GATEWAY_502, RATE_LIMIT, LEAKED, OUTAGE, RETRY, DARK, LOGIN, CHECKOUT, PROVIDER, ROTATE, TYPO,
         KEYSET, SECRET, VIM, WELCOME}  # all but the archived project's issue


async def fetch(client: httpx.AsyncClient, params: Any = None, headers: dict[str, str] | None = None,
                path: str = "/api/v4/issues") -> list[dict[str, Any]]:
    response = await client.get(path, params=params, headers=headers or ROOT)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


async def titles(client: httpx.AsyncClient, params: Any = None, headers: dict[str, str] | None = None,
                 path: str = "/api/v4/issues") -> set[str]:
    return {issue["title"] for issue in await fetch(client, params, headers, path)}


async def error(client: httpx.AsyncClient, params: Any, status: int = 400) -> Any:
    response = await client.get("/api/v4/issues", params=params, headers=ROOT)
    assert response.status_code == status, response.text
    return response.json()


# --- scope and visibility -------------------------------------------------------------------------------

async def test_global_listing_defaults_to_issues_created_by_the_caller(client: httpx.AsyncClient) -> None:
    assert await titles(client, {"per_page": 100}, ALICE) == {GATEWAY_502, RETRY, LOGIN, KEYSET, VIM}
    assert await titles(client, {"per_page": 100}) == {OUTAGE, WELCOME}


async def test_global_listing_needs_authentication_unless_scope_all(client: httpx.AsyncClient) -> None:
    for params in ({}, {"scope": "created_by_me"}, {"scope": "assigned_to_me"}):
        response = await client.get("/api/v4/issues", params=params)
        assert response.status_code == 401
        assert response.json() == {"message": "401 Unauthorized"}
    public = await client.get("/api/v4/issues", params={"scope": "all", "per_page": 100})
    assert public.status_code == 200
    seen = {i["title"] for i in public.json()}
    assert GATEWAY_502 in seen and WELCOME in seen  # public projects
    assert not seen & {LEAKED, ROTATE, PROVIDER, SECRET, VIM}  # confidential, internal or private


async def test_scope_assigned_to_me_and_all(client: httpx.AsyncClient) -> None:
    assert await titles(client, {"scope": "assigned_to_me"}, ALICE) == {RATE_LIMIT, OUTAGE, KEYSET, VIM}
    assert await titles(client, ALL) == EVERY
    assert (await error(client, {"scope": "mine"})) == {"error": "scope does not have a valid value"}


async def test_private_projects_and_confidential_issues_stay_hidden(client: httpx.AsyncClient) -> None:
    seen = await titles(client, ALL, ALICE)
    assert SECRET not in seen  # hidden-lab is private and alice is no member
    assert LEAKED in seen and ROTATE in seen  # confidential, but alice is a developer of acme
    guest = {**ROOT, "Sudo": "external.user"}  # a Guest of acme
    seen = await titles(client, ALL, guest)
    assert LEAKED not in seen and ROTATE not in seen and GATEWAY_502 in seen


async def test_a_private_projects_issues_are_404_to_non_members(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/projects/hidden-lab%2Fsecrets/issues", headers=ALICE)
    assert response.status_code == 404
    assert response.json() == {"message": "404 Project Not Found"}
    response = await client.get("/api/v4/groups/hidden-lab/issues", headers=ALICE)
    assert response.status_code == 404
    assert response.json() == {"message": "404 Group Not Found"}
    assert await titles(client, None, ROOT, "/api/v4/projects/hidden-lab%2Fsecrets/issues") == {SECRET}


# --- people ---------------------------------------------------------------------------------------------

async def test_assignee_id_and_username_are_mutually_exclusive(client: httpx.AsyncClient) -> None:
    body = await error(client, {**ALL, "assignee_id": 3, "assignee_username": "bob"})
    assert body == {"error": "assignee_id, assignee_username are mutually exclusive"}
    body = await error(client, {**ALL, "author_id": 3, "author_username": "bob"})
    assert body == {"error": "author_id, author_username are mutually exclusive"}


async def test_assignee_id_none_any_and_a_user(client: httpx.AsyncClient) -> None:
    unassigned = {RETRY, DARK, CHECKOUT, TYPO, WELCOME}
    assert await titles(client, {**ALL, "assignee_id": "None"}) == unassigned
    assert await titles(client, {**ALL, "assignee_id": "Any"}) == EVERY - unassigned
    assert await titles(client, {**ALL, "assignee_id": 3}) == {GATEWAY_502, OUTAGE}
    assert (await error(client, {**ALL, "assignee_id": "bob"})) == {"error": "assignee_id is invalid"}


async def test_assignee_username_needs_every_listed_user(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "assignee_username": "bob"}) == {GATEWAY_502, OUTAGE}
    assert await titles(client, {**ALL, "assignee_username[]": ["bob", "alice"]}) == {OUTAGE}
    assert await titles(client, {**ALL, "assignee_username": "nobody"}) == set()


async def test_author_filters_combine_with_the_scope(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "author_username": "carol"}) == {LEAKED, ROTATE}
    assert await titles(client, {**ALL, "author_id": 4}) == {LEAKED, ROTATE}
    # the default scope is created_by_me: root did not write carol's issues
    assert await titles(client, {"author_id": 4}) == set()
    assert await titles(client, {"scope": "assigned_to_me", "author_id": 2}, ALICE) == {KEYSET, VIM}


# --- labels, milestones, types, flags --------------------------------------------------------------------

async def test_labels_need_all_and_take_none_and_any(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "labels": "bug,backend"}) == {GATEWAY_502}
    assert await titles(client, {**ALL, "labels": "bug"}) == {GATEWAY_502, LEAKED, LOGIN}
    assert await titles(client, {**ALL, "labels": "None"}) == {DARK, VIM}
    assert await titles(client, {**ALL, "labels": "none"}) == {DARK, VIM}
    assert await titles(client, {**ALL, "labels": "No Label"}) == {DARK, VIM}
    assert await titles(client, {**ALL, "labels": "Any"}) == EVERY - {DARK, VIM}


async def test_milestone_title_none_and_any(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "milestone": "v2.0"}) == {GATEWAY_502, RATE_LIMIT, LOGIN}
    with_milestone = {GATEWAY_502, RATE_LIMIT, OUTAGE, LOGIN, PROVIDER, KEYSET}
    assert await titles(client, {**ALL, "milestone": "Any"}) == with_milestone
    assert await titles(client, {**ALL, "milestone": "None"}) == EVERY - with_milestone


async def test_issue_type_confidential_and_state(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "issue_type": "incident"}) == {OUTAGE}
    assert await titles(client, {**ALL, "issue_type": "test_case"}) == {CHECKOUT}
    assert await titles(client, {**ALL, "confidential": "true"}) == {LEAKED, ROTATE}
    assert await titles(client, {**ALL, "state": "closed"}) == {OUTAGE, LOGIN, TYPO}
    assert await titles(client, {**ALL, "state": "opened"}) == EVERY - {OUTAGE, LOGIN, TYPO}
    assert await titles(client, {**ALL, "state": "all"}) == EVERY
    assert (await error(client, {"state": "open"})) == {"error": "state does not have a valid value"}
    body = await error(client, {"issue_type": "epic"})
    assert body == {"error": "issue_type does not have a valid value"}


async def test_my_reaction_emoji(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "my_reaction_emoji": "thumbsup"}, ALICE) == {GATEWAY_502}
    assert await titles(client, {**ALL, "my_reaction_emoji": "Any"}, ALICE) == {GATEWAY_502, KEYSET}
    none = await titles(client, {**ALL, "my_reaction_emoji": "None"}, ALICE)
    assert GATEWAY_502 not in none and KEYSET not in none and RATE_LIMIT in none


async def test_non_archived_defaults_to_true(client: httpx.AsyncClient) -> None:
    assert LEGACY not in await titles(client, ALL)
    assert LEGACY in await titles(client, {**ALL, "non_archived": "false"})


async def test_iids(client: httpx.AsyncClient) -> None:
    found = await fetch(client, {**ALL, "iids[]": [1, 2]})
    assert {i["iid"] for i in found} == {1, 2}
    assert {GATEWAY_502, RATE_LIMIT, DARK, LOGIN} <= {i["title"] for i in found}


# --- dates --------------------------------------------------------------------------------------------

async def test_due_date_values(client: httpx.AsyncClient, clock: Any) -> None:
    assert await titles(client, {**ALL, "due_date": "overdue"}) == {LEAKED, LOGIN}
    due = {GATEWAY_502, RATE_LIMIT, LEAKED, LOGIN, PROVIDER}
    assert await titles(client, {**ALL, "due_date": "0"}) == EVERY - due
    around = await titles(client, {**ALL, "due_date": "next_month_and_previous_two_weeks"})
    assert around == {GATEWAY_502, RATE_LIMIT, LEAKED, PROVIDER}
    today = date.fromtimestamp(clock.time())
    offsets = {GATEWAY_502: 3, RATE_LIMIT: 20, LEAKED: -2, LOGIN: -70, PROVIDER: 10}
    week = {t for t, d in offsets.items()
            if (today + timedelta(days=d)).isocalendar()[:2] == today.isocalendar()[:2]}
    assert await titles(client, {**ALL, "due_date": "week"}) == week
    month = {t for t, d in offsets.items()
             if (today + timedelta(days=d)).strftime("%Y%m") == today.strftime("%Y%m")}
    assert await titles(client, {**ALL, "due_date": "month"}) == month
    body = await error(client, {"due_date": "tomorrow"})
    assert body == {"error": "due_date does not have a valid value"}


async def test_created_and_updated_bounds_are_inclusive(client: httpx.AsyncClient) -> None:
    issue = next(i for i in await fetch(client, ALL) if i["title"] == RETRY)
    at = issue["created_at"]
    assert RETRY in await titles(client, {**ALL, "created_after": at})
    assert RETRY in await titles(client, {**ALL, "created_before": at})
    both = await titles(client, {**ALL, "created_after": at, "created_before": at})
    assert both == {RETRY}
    updated = issue["updated_at"]
    assert await titles(client, {**ALL, "updated_after": updated, "updated_before": updated}) >= {RETRY}
    later = await titles(client, {**ALL, "updated_after": "2999-01-01T00:00:00Z"})
    assert later == set()
    assert (await error(client, {"created_after": "yesterday"})) == {"error": "created_after is invalid"}


# --- search, ordering, not, details ---------------------------------------------------------------------

async def test_search_and_in(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "search": "backoff"}) == {RETRY}  # only in the description
    assert await titles(client, {**ALL, "search": "backoff", "in": "title"}) == set()
    assert await titles(client, {**ALL, "search": "backoff", "in": "description"}) == {RETRY}
    assert await titles(client, {**ALL, "search": "RETRY", "in": "title,description"}) == {RETRY}
    assert (await error(client, {"search": "x", "in": "body"})) == {"error": "in does not have a valid value"}


async def test_every_order_by_and_sort(client: httpx.AsyncClient) -> None:
    params = {**ALL, "project_id": 0}
    for order_by in ("created_at", "updated_at", "priority", "due_date", "relative_position",
                     "label_priority", "milestone_due", "popularity", "weight"):
        desc = [i["id"] for i in await fetch(client, {**params, "order_by": order_by})]
        asc = [i["id"] for i in await fetch(client, {**params, "order_by": order_by, "sort": "asc"})]
        assert sorted(desc) == sorted(asc) and len(desc) == len(EVERY), order_by
    created = await fetch(client, {**ALL, "order_by": "created_at", "sort": "asc"})
    stamps = [i["created_at"] for i in created]
    assert stamps == sorted(stamps)
    updated = await fetch(client, ALL | {"order_by": "updated_at"})
    assert [i["updated_at"] for i in updated] == sorted((i["updated_at"] for i in updated), reverse=True)
    due = await fetch(client, {**ALL, "order_by": "due_date", "sort": "asc"})
    dates = [i["due_date"] for i in due]
    assert dates[:5] == sorted(d for d in dates if d) and all(d is None for d in dates[5:])  # nulls last
    popular = await fetch(client, {**ALL, "order_by": "popularity"})
    assert [i["title"] for i in popular[:2]] == [GATEWAY_502, KEYSET]  # two upvotes, then one
    weight = await fetch(client, {**ALL, "order_by": "weight"})
    assert [i["weight"] for i in weight[:3]] == [5, 3, 2]
    labels = await fetch(client, {**ALL, "order_by": "label_priority", "sort": "asc"})
    assert labels[0]["title"] in {LEAKED, ROTATE, SECRET}  # "security" has priority 0
    assert (await error(client, {"order_by": "size"})) == {"error": "order_by does not have a valid value"}
    assert (await error(client, {"sort": "up"})) == {"error": "sort does not have a valid value"}


async def test_orders_by_milestone_position_and_priority(client: httpx.AsyncClient) -> None:
    due = [i["title"] for i in await fetch(client, {**ALL, "order_by": "milestone_due", "sort": "asc"})]
    assert set(due[:2]) == {OUTAGE, KEYSET} and set(due[2:5]) == {GATEWAY_502, RATE_LIMIT, LOGIN}
    priority = [i["title"] for i in await fetch(client, {**ALL, "order_by": "priority", "sort": "asc"})]
    assert set(priority[:2]) == {OUTAGE, KEYSET}
    by_position = await fetch(client, {**ALL, "order_by": "relative_position", "sort": "asc"})
    positions = [i["id"] for i in by_position]
    assert positions == sorted(positions)


async def test_weight_and_iteration(client: httpx.AsyncClient) -> None:
    weighted = {GATEWAY_502, RATE_LIMIT, KEYSET}
    assert await titles(client, {**ALL, "weight": "Any"}) == weighted
    assert await titles(client, {**ALL, "weight": "None"}) == EVERY - weighted
    assert await titles(client, {**ALL, "weight": 3}) == {GATEWAY_502}
    body = await error(client, {**ALL, "iteration_id": "Any", "iteration_title": "Sprint 1"})
    assert body == {"error": "iteration_id, iteration_title are mutually exclusive"}
    assert await titles(client, {**ALL, "iteration_id": "None"}) == EVERY  # no issue has an iteration
    assert await titles(client, {**ALL, "iteration_id": "Any"}) == set()


async def test_not_hash_on_the_global_listing(client: httpx.AsyncClient) -> None:
    assert await titles(client, {**ALL, "not[labels]": "bug"}) == EVERY - {GATEWAY_502, LEAKED, LOGIN}
    assert await titles(client, {**ALL, "not[milestone]": "v2.0"}) == EVERY - {GATEWAY_502, RATE_LIMIT, LOGIN}
    assert await titles(client, {**ALL, "not[author_username]": "carol"}) == EVERY - {LEAKED, ROTATE}
    assert await titles(client, {**ALL, "not[author_id]": 4}) == EVERY - {LEAKED, ROTATE}
    assert await titles(client, {**ALL, "not[assignee_id]": 3}) == EVERY - {GATEWAY_502, OUTAGE}
    assert await titles(client, {**ALL, "not[assignee_username][]": ["bob"]}) == EVERY - {GATEWAY_502, OUTAGE}
    assert all(i["iid"] != 1 for i in await fetch(client, {**ALL, "not[iids][]": [1]}))
    assert await titles(client, {**ALL, "not[weight]": 3}) == EVERY - {GATEWAY_502}
    # the global listing does not accept not[search] or not[my_reaction_emoji]: ignored
    assert await titles(client, {**ALL, "not[search]": "retry"}) == EVERY


async def test_not_hash_on_the_group_listing(client: httpx.AsyncClient) -> None:
    path = "/api/v4/groups/acme/issues"
    acme = await titles(client, {"per_page": 100}, ALICE, path)
    assert RETRY in acme
    assert await titles(client, {"not[search]": "retry"}, ALICE, path) == acme - {RETRY}
    no_desc = await titles(client, {"not[search]": "backoff", "not[in]": "title"}, ALICE, path)
    assert no_desc == acme  # "backoff" is only in a description
    assert GATEWAY_502 not in await titles(client, {"not[my_reaction_emoji]": "thumbsup"}, ALICE, path)
    # the group listing has no not[weight]: ignored
    assert await titles(client, {"not[weight]": 3}, ALICE, path) == acme


async def test_group_listing_defaults_and_references(client: httpx.AsyncClient) -> None:
    path = "/api/v4/groups/acme/issues"
    found = await fetch(client, {"per_page": 100}, ALICE, path)
    assert {i["title"] for i in found} == {GATEWAY_502, RATE_LIMIT, LEAKED, OUTAGE, RETRY, DARK, LOGIN,
                                           CHECKOUT, PROVIDER, ROTATE, TYPO}  # scope all, no archived
    gateway = next(i for i in found if i["title"] == GATEWAY_502)
    assert gateway["references"] == {"short": "#1", "relative": "platform/api-gateway#1",
                                     "full": "acme/platform/api-gateway#1"}
    anonymous = await client.get(path, params={"per_page": 100})
    assert anonymous.status_code == 200
    seen = {i["title"] for i in anonymous.json()}
    assert ROTATE not in seen and LEAKED not in seen and PROVIDER not in seen and GATEWAY_502 in seen
    ignored_in = await titles(client, {"search": "backoff", "in": "title"}, ALICE, path)
    assert ignored_in == {RETRY}  # the group listing has no `in`


async def test_with_labels_details(client: httpx.AsyncClient) -> None:
    plain = await fetch(client, {**ALL, "iids[]": [1], "labels": "backend"})
    assert plain[0]["labels"] == ["bug", "priority::high", "backend"]
    detailed = await fetch(client, {**ALL, "iids[]": [1], "labels": "backend", "with_labels_details": "true"})
    bug = detailed[0]["labels"][0]
    assert {k: bug[k] for k in ("name", "color", "description", "text_color")} == {
        "name": "bug", "color": "#d9534f", "description": "Something is broken", "text_color": "#FFFFFF"}
    assert bug["description_html"] == "<p>Something is broken</p>"


async def test_issue_shape(client: httpx.AsyncClient) -> None:
    issue = (await fetch(client, {**ALL, "iids[]": [1], "labels": "backend"}))[0]
    assert issue["time_stats"] == {"time_estimate": 12600, "total_time_spent": 3600,
                                   "human_time_estimate": "3h 30m", "human_total_time_spent": "1h"}
    assert issue["type"] == "ISSUE" and issue["issue_type"] == "issue"
    assert issue["upvotes"] == 2 and issue["user_notes_count"] == 2 and issue["merge_requests_count"] == 2
    assert issue["assignees"][0]["username"] == "bob" and issue["assignee"]["username"] == "bob"
    assert issue["author"]["username"] == "alice" and issue["milestone"]["title"] == "v2.0"
    assert issue["web_url"] == "http://sandbox.test/acme/platform/api-gateway/-/issues/1"
    assert set(issue["_links"]) >= {"self", "notes", "award_emoji", "project"}
    assert "subscribed" not in issue  # listings leave it out, as GitLab does
    closed = (await fetch(client, {**ALL, "issue_type": "incident"}))[0]
    assert closed["closed_by"]["username"] == "carol" and closed["closed_at"] is not None


async def test_pagination_defaults_to_twenty(client: httpx.AsyncClient) -> None:
    response = await client.get("/api/v4/issues", params={"scope": "all", "per_page": 5}, headers=ROOT)
    assert len(response.json()) == 5
    assert response.headers["x-total"] == str(len(EVERY))
    assert 'rel="next"' in response.headers["Link"]


@pytest.mark.slow  # seeds the whole large instance (a few seconds on a busy machine)
def test_large_scale_has_fifty_thousand_issues() -> None:
    from labdeck.sandbox.options import SandboxOptions
    from labdeck.sandbox.seed import build_store
    from labdeck.sandbox.seed.issues import LARGE_ISSUES, issues_data

    data = issues_data(build_store(SandboxOptions(scale="large")))
    assert len(data.issues) >= LARGE_ISSUES >= 50_000
    assert len({(i.project_id, i.iid) for i in data.issues.values()}) == len(data.issues)


async def test_global_listing_gives_the_full_path_as_relative_reference(client: httpx.AsyncClient) -> None:
    """GitLab's global `/issues` has no project or group context: `relative` is the full reference."""
    rows = await fetch(client, {**ALL, "per_page": "100"})
    gateway = next(i for i in rows if i["references"]["full"] == "acme/platform/api-gateway#1")
    assert gateway["references"] == {"short": "#1", "relative": "acme/platform/api-gateway#1",
                                     "full": "acme/platform/api-gateway#1"}
    assert all(i["references"]["relative"] == i["references"]["full"] for i in rows)
    project = await client.get("/api/v4/projects/acme%2Fplatform%2Fapi-gateway/issues", headers=ROOT)
    assert {i["references"]["relative"] for i in project.json()} <= {f"#{i['iid']}" for i in project.json()}
