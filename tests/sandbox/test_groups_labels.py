"""Group labels: listing options, lookup by id or title, create with colour names, update with new_name,
delete, subscriptions with 304, and the deprecated name-in-parameters forms (GitLab's API docs)."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ROOT, as_sudo, call


def titles(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [label["name"] for label in response.json()]


async def test_listing_with_ancestors_descendants_and_counts(client: httpx.AsyncClient) -> None:
    platform = "/groups/acme%2Fplatform/labels"
    assert titles(await call(client, "GET", platform, ROOT)) == ["api", "bug", "documentation", "feature"]
    own = await call(client, "GET", platform, ROOT, params={"include_ancestor_groups": "false"})
    assert titles(own) == ["api"]
    assert titles(await call(client, "GET", "/groups/acme/labels", ROOT)) == [
        "bug",
        "documentation",
        "feature",
    ]
    below = await call(
        client, "GET", "/groups/acme/labels", ROOT, params={"include_descendant_groups": "true"}
    )
    assert titles(below) == ["api", "bug", "documentation", "feature"]
    plain = (await call(client, "GET", "/groups/acme/labels", ROOT)).json()[0]
    assert "open_issues_count" not in plain and plain["subscribed"] is False
    counted = (await call(client, "GET", "/groups/acme/labels", ROOT, params={"with_counts": "true"})).json()[
        0
    ]
    for field in ("open_issues_count", "closed_issues_count", "open_merge_requests_count"):
        assert isinstance(counted[field], int)
    found = await call(client, "GET", "/groups/acme/labels", ROOT, params={"search": "BROKEN"})
    assert titles(found) == ["bug"]


async def test_get_by_id_or_title(client: httpx.AsyncClient) -> None:
    bug = (await call(client, "GET", "/groups/acme/labels/bug", ROOT)).json()
    assert bug["color"] == "#FF0000" and bug["text_color"] == "#FFFFFF"  # seeded as `red`
    by_id = await call(client, "GET", f"/groups/acme/labels/{bug['id']}", ROOT)
    assert by_id.json()["name"] == "bug"
    spaced = await call(client, "GET", "/groups/opensource/labels/good%20first%20issue", ROOT)
    assert spaced.status_code == 200
    missing = await call(client, "GET", "/groups/acme/labels/nothing", ROOT)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Label Not Found"})
    inherited = await call(
        client, "GET", "/groups/acme%2Fplatform/labels/bug", ROOT, params={"include_ancestor_groups": "false"}
    )
    assert inherited.status_code == 404


async def test_create_with_css_colour_names_and_hex(client: httpx.AsyncClient) -> None:
    made = await call(
        client,
        "POST",
        "/groups/acme/labels",
        ROOT,
        json={"name": "urgent", "color": "DarkOrange", "description": "Now"},
    )
    assert made.status_code == 201
    assert (made.json()["name"], made.json()["color"], made.json()["description"]) == (
        "urgent",
        "#FF8C00",  # a CSS name is stored as its upper-case hex (Gitlab::Color)
        "Now",
    )
    short = await call(client, "POST", "/groups/acme/labels", ROOT, data={"name": "x", "color": "#ABC"})
    assert short.json()["color"] == "#ABC"  # a hex colour is kept as sent
    assert short.json()["text_color"] == "#1F1E24"  # aa+bb+cc = 561 > 500: dark text
    lower = await call(client, "POST", "/groups/acme/labels", ROOT, data={"name": "w", "color": " #d9534f "})
    assert (lower.json()["color"], lower.json()["text_color"]) == ("#d9534f", "#FFFFFF")
    bad = await call(client, "POST", "/groups/acme/labels", ROOT, json={"name": "y", "color": "blurple"})
    assert (bad.status_code, bad.json()) == (400, {"message": {"color": ["must be a valid color code"]}})
    missing = await call(client, "POST", "/groups/acme/labels", ROOT, json={"name": "z"})
    assert missing.json() == {"error": "color is missing"}
    taken = await call(client, "POST", "/groups/acme/labels", ROOT, json={"name": "bug", "color": "red"})
    assert (taken.status_code, taken.json()) == (409, {"message": "Label already exists"})
    guest = await as_sudo(client, "POST", "/groups/acme/labels", "erin", json={"name": "q", "color": "red"})
    assert guest.status_code == 403


async def test_update_with_new_name_and_delete(client: httpx.AsyncClient) -> None:
    renamed = await call(
        client, "PUT", "/groups/acme/labels/bug", ROOT, json={"new_name": "defect", "color": "navy"}
    )
    assert renamed.status_code == 200 and (renamed.json()["name"], renamed.json()["color"]) == (
        "defect",
        "#000080",  # navy
    )
    nothing = await call(client, "PUT", "/groups/acme/labels/defect", ROOT, json={})
    assert (nothing.status_code, nothing.json()) == (
        400,
        {"error": ("new_name, color, description are missing, at least one parameter must be provided")},
    )
    clash = await call(client, "PUT", "/groups/acme/labels/defect", ROOT, json={"new_name": "feature"})
    assert (clash.status_code, clash.json()) == (400, {"message": {"title": ["has already been taken"]}})
    deleted = await call(client, "DELETE", "/groups/acme/labels/defect", ROOT)
    assert (deleted.status_code, deleted.content) == (204, b"")
    assert (await call(client, "GET", "/groups/acme/labels/defect", ROOT)).status_code == 404


async def test_subscribe_and_unsubscribe_with_304(client: httpx.AsyncClient) -> None:
    first = await call(client, "POST", "/groups/acme/labels/bug/subscribe", ALICE)
    assert first.status_code == 201 and first.json()["subscribed"] is True
    again = await call(client, "POST", "/groups/acme/labels/bug/subscribe", ALICE)
    assert (again.status_code, again.content) == (304, b"")
    mine = (await call(client, "GET", "/groups/acme/labels/bug", ALICE)).json()
    theirs = (await call(client, "GET", "/groups/acme/labels/bug", ROOT)).json()
    assert mine["subscribed"] is True and theirs["subscribed"] is False
    off = await call(client, "POST", "/groups/acme/labels/bug/unsubscribe", ALICE)
    assert off.status_code == 201 and off.json()["subscribed"] is False
    assert (await call(client, "POST", "/groups/acme/labels/bug/unsubscribe", ALICE)).status_code == 304


async def test_deprecated_name_in_parameters_forms(client: httpx.AsyncClient) -> None:
    updated = await call(
        client, "PUT", "/groups/acme/labels", ROOT, data={"name": "feature", "description": "Changed"}
    )
    assert updated.status_code == 200 and updated.json()["description"] == "Changed"
    missing = await call(client, "PUT", "/groups/acme/labels", ROOT, data={"description": "x"})
    assert missing.json() == {"error": "name is missing"}
    deleted = await call(client, "DELETE", "/groups/acme/labels", ROOT, params={"name": "feature"})
    assert deleted.status_code == 204
    assert "feature" not in titles(await call(client, "GET", "/groups/acme/labels", ROOT))
