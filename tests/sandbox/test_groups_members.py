"""Members of groups and projects: direct and inherited, single, add, update, remove, override, and the
billable members of top-level groups (GitLab's API docs)."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ALICE_ID, BOB_ID, CAROL_ID, DAVE_ID, ERIN_ID, FRANK_ID, ROOT, as_sudo, call


def levels(response: httpx.Response) -> dict[str, int]:
    assert response.status_code == 200, response.text
    return {m["username"]: m["access_level"] for m in response.json()}


async def test_direct_and_inherited_members(client: httpx.AsyncClient) -> None:
    assert levels(await call(client, "GET", "/groups/acme%2Fplatform/members", ROOT)) == {}
    inherited = levels(await call(client, "GET", "/groups/acme%2Fplatform/members/all", ROOT))
    assert inherited["carol"] == 50 and inherited["alice"] == 30
    await call(
        client,
        "POST",
        "/groups/acme%2Fplatform/members",
        ROOT,
        data={"user_id": str(ALICE_ID), "access_level": "40"},
    )
    await call(
        client,
        "POST",
        "/groups/acme%2Fplatform/members",
        ROOT,
        data={"user_id": str(CAROL_ID), "access_level": "10"},
    )
    highest = levels(await call(client, "GET", "/groups/acme%2Fplatform/members/all", ROOT))
    assert highest["alice"] == 40 and highest["carol"] == 50  # the highest level wins either way
    project = levels(await call(client, "GET", "/projects/hidden-lab%2Fexperiments/members/all", ROOT))
    assert project == {"bob": 50, "carol": 40, "dave": 10, "erin": 20, "frank": 15}
    direct = levels(await call(client, "GET", "/projects/hidden-lab%2Fexperiments/members", ROOT))
    assert direct == {"erin": 20, "frank": 15}


async def test_query_and_user_ids_filters(client: httpx.AsyncClient) -> None:
    found = levels(await call(client, "GET", "/groups/acme/members", ROOT, params={"query": "CAR"}))
    assert found == {"carol": 50}
    some = levels(
        await call(
            client,
            "GET",
            "/groups/acme/members",
            ROOT,
            params=[("user_ids[]", str(BOB_ID)), ("user_ids[]", str(DAVE_ID))],
        )
    )
    assert some == {"bob": 20, "dave": 15}


async def test_single_member_direct_and_inherited(client: httpx.AsyncClient) -> None:
    missing = await call(client, "GET", f"/groups/acme%2Fplatform/members/{CAROL_ID}", ROOT)
    assert (missing.status_code, missing.json()) == (404, {"message": "404 Not found"})
    found = await call(client, "GET", f"/groups/acme%2Fplatform/members/all/{CAROL_ID}", ROOT)
    assert found.status_code == 200 and found.json()["access_level"] == 50
    assert {"id", "username", "name", "state", "avatar_url", "web_url", "expires_at", "created_at"} <= set(
        found.json()
    )
    project = await call(client, "GET", f"/projects/hidden-lab%2Fexperiments/members/{ERIN_ID}", ROOT)
    assert project.json()["access_level"] == 20


async def test_add_update_remove_a_group_member(client: httpx.AsyncClient) -> None:
    path = "/groups/opensource/members"
    added = await call(
        client, "POST", path, ALICE, json={"user_id": ERIN_ID, "access_level": 20, "expires_at": "2999-01-31"}
    )
    assert added.status_code == 201
    assert (added.json()["id"], added.json()["access_level"], added.json()["expires_at"]) == (
        ERIN_ID,
        20,
        "2999-01-31",
    )
    again = await call(client, "POST", path, ALICE, json={"user_id": ERIN_ID, "access_level": 20})
    assert (again.status_code, again.json()) == (409, {"message": "Member already exists"})
    updated = await call(client, "PUT", f"{path}/{ERIN_ID}", ALICE, json={"access_level": 40})
    assert updated.status_code == 200 and updated.json()["access_level"] == 40
    removed = await call(client, "DELETE", f"{path}/{ERIN_ID}", ALICE)
    assert (removed.status_code, removed.content) == (204, b"")
    gone = await call(client, "DELETE", f"{path}/{ERIN_ID}", ALICE)
    assert gone.status_code == 404


async def test_add_several_ids_separated_by_commas(client: httpx.AsyncClient) -> None:
    added = await call(
        client,
        "POST",
        "/groups/opensource/members",
        ROOT,
        data={"user_id": f"{DAVE_ID},{ERIN_ID}", "access_level": "10"},
    )
    assert (added.status_code, added.json()) == (201, {"status": "success"})
    members = levels(await call(client, "GET", "/groups/opensource/members", ROOT))
    assert members["dave"] == 10 and members["erin"] == 10


async def test_member_validation_and_permissions(client: httpx.AsyncClient) -> None:
    path = "/groups/acme/members"
    not_owner = await call(client, "POST", path, ALICE, json={"user_id": ERIN_ID, "access_level": 10})
    assert not_owner.status_code == 403
    missing = await call(client, "POST", path, ROOT, json={"user_id": ERIN_ID})
    assert (missing.status_code, missing.json()) == (400, {"error": "access_level is missing"})
    invalid = await call(client, "POST", path, ROOT, json={"user_id": 20, "access_level": 35})
    assert (invalid.status_code, invalid.json()) == (
        400,
        {"error": "access_level does not have a valid value"},
    )
    owner_on_project = await call(
        client, "POST", "/projects/acme%2Fhandbook/members", ROOT, json={"user_id": 20, "access_level": 50}
    )
    assert owner_on_project.json() == {"message": {"access_level": ["is not included in the list"]}}
    past = await call(
        client, "POST", path, ROOT, json={"user_id": 20, "access_level": 10, "expires_at": "2001-01-01"}
    )
    assert past.json() == {"message": {"expires_at": ["cannot be a date in the past"]}}
    bad_date = await call(
        client, "POST", path, ROOT, json={"user_id": 20, "access_level": 10, "expires_at": "tomorrow"}
    )
    assert bad_date.json() == {"error": "expires_at is invalid"}
    nobody = await call(client, "POST", path, ROOT, json={"user_id": 9999, "access_level": 10})
    assert (nobody.status_code, nobody.json()) == (404, {"message": "404 User Not Found"})
    last_owner = await call(client, "DELETE", f"/groups/acme/members/{CAROL_ID}", ROOT)
    assert last_owner.status_code == 403


async def test_project_member_lifecycle(client: httpx.AsyncClient) -> None:
    path = "/projects/opensource%2Flabdeck/members"
    added = await call(client, "POST", path, ALICE, json={"user_id": FRANK_ID, "access_level": 30})
    assert added.status_code == 201 and added.json()["access_level"] == 30
    assert (await call(client, "PUT", f"{path}/{FRANK_ID}", ALICE, json={"access_level": 20})).json()[
        "access_level"
    ] == 20
    assert (await call(client, "DELETE", f"{path}/{FRANK_ID}", ALICE)).status_code == 204
    assert levels(await call(client, "GET", path, ROOT)) == {}


async def test_override_on_and_off(client: httpx.AsyncClient) -> None:
    on = await call(client, "POST", f"/groups/acme/members/{BOB_ID}/override", ROOT)
    assert on.status_code == 201 and on.json()["override"] is True and on.json()["id"] == BOB_ID
    off = await call(client, "DELETE", f"/groups/acme/members/{BOB_ID}/override", ROOT)
    assert off.status_code == 200 and off.json()["override"] is False
    not_member = await call(client, "POST", f"/groups/acme/members/{9999}/override", ROOT)
    assert not_member.status_code == 404


async def test_billable_members_top_level_only(client: httpx.AsyncClient) -> None:
    everyone = await call(
        client, "GET", "/groups/hidden-lab/billable_members", ROOT, params={"per_page": 100}
    )
    names = {m["username"] for m in everyone.json()}
    assert names == {"bob", "carol", "dave", "erin", "frank"}  # project members of subprojects count
    member = everyone.json()[0]
    for field in (
        "id",
        "username",
        "name",
        "state",
        "avatar_url",
        "web_url",
        "last_activity_on",
        "membership_type",
        "removable",
    ):
        assert field in member
    sub = await call(client, "GET", "/groups/acme%2Fplatform/billable_members", ROOT)
    assert sub.status_code == 400 and "top-level" in sub.json()["message"]
    refused = await call(client, "GET", "/groups/acme/billable_members", ALICE)
    assert refused.status_code == 403
    found = await call(client, "GET", "/groups/hidden-lab/billable_members", ROOT, params={"search": "ERI"})
    assert [m["username"] for m in found.json()] == ["erin"]
    bad = await call(client, "GET", "/groups/hidden-lab/billable_members", ROOT, params={"sort": "random"})
    assert bad.status_code == 400


async def test_billable_member_sorts(client: httpx.AsyncClient) -> None:
    async def order(sort: str) -> list[str]:
        response = await call(
            client, "GET", "/groups/hidden-lab/billable_members", ROOT, params={"sort": sort}
        )
        assert response.status_code == 200
        return [m["username"] for m in response.json()]

    names = await order("name_asc")
    assert names == sorted(names, key=str.lower) and await order("name_desc") == names[::-1]
    assert (await order("access_level_desc"))[0] == "bob"
    assert (await order("access_level_asc"))[0] == "dave"
    for sort in ("last_joined", "oldest_joined", "oldest_sign_in", "recent_sign_in"):
        assert sorted(await order(sort)) == sorted(names)


async def test_billable_memberships_and_removal_from_the_hierarchy(client: httpx.AsyncClient) -> None:
    await call(
        client,
        "POST",
        "/projects/hidden-lab%2Fsecrets/members",
        ROOT,
        json={"user_id": DAVE_ID, "access_level": 30},
    )
    memberships = await call(
        client, "GET", f"/groups/hidden-lab/billable_members/{DAVE_ID}/memberships", ROOT
    )
    assert memberships.status_code == 200
    sources = {(m["source_full_name"], m["access_level"]["integer_value"]) for m in memberships.json()}
    assert sources == {("Hidden Lab", 10), ("Hidden Lab / Secrets", 30)}
    assert memberships.json()[0]["access_level"]["string_value"] in {"Guest", "Developer"}
    removed = await call(client, "DELETE", f"/groups/hidden-lab/billable_members/{DAVE_ID}", ROOT)
    assert removed.status_code == 204
    assert "dave" not in levels(await call(client, "GET", "/groups/hidden-lab/members", ROOT))
    assert "dave" not in levels(await call(client, "GET", "/projects/hidden-lab%2Fsecrets/members", ROOT))
    after = await call(client, "GET", f"/groups/hidden-lab/billable_members/{DAVE_ID}/memberships", ROOT)
    assert after.status_code == 400
    sudo = await as_sudo(client, "GET", "/groups/hidden-lab/billable_members", "bob")
    assert sudo.status_code == 200
