"""Group listings, subgroups, descendants, group projects and shared projects (GitLab's API docs)."""

from __future__ import annotations

import httpx
from groups_fixtures import ALICE, ROOT, as_sudo, call


def paths(response: httpx.Response) -> list[str]:
    assert response.status_code == 200, response.text
    return [g["full_path"] for g in response.json()]


async def test_all_available_defaults_differ_for_users_and_admins(client: httpx.AsyncClient) -> None:
    # carol is a member of acme and hidden-lab only: by default she sees just those (and their subgroups).
    mine = set(paths(await as_sudo(client, "GET", "/groups", "carol", params={"per_page": 100})))
    assert "opensource" not in mine and {"acme", "hidden-lab"} <= mine
    everything = set(
        paths(
            await as_sudo(
                client, "GET", "/groups", "carol", params={"per_page": 100, "all_available": "true"}
            )
        )
    )
    assert "opensource" in everything
    admin = set(paths(await call(client, "GET", "/groups", ROOT, params={"per_page": 100})))
    assert "hidden-lab" in admin and "opensource" in admin
    admin_mine = paths(await call(client, "GET", "/groups", ROOT, params={"all_available": "false"}))
    assert "hidden-lab" not in admin_mine


async def test_owned_and_min_access_level_take_precedence(client: httpx.AsyncClient) -> None:
    owned = paths(
        await call(client, "GET", "/groups", ALICE, params={"owned": "true", "all_available": "true"})
    )
    assert owned == ["opensource"]
    developer = set(
        paths(
            await call(
                client, "GET", "/groups", ALICE, params={"min_access_level": 30, "all_available": "true"}
            )
        )
    )
    assert developer == {"acme", "acme/platform", "acme/infra", "acme/security", "opensource"}


async def test_order_sort_search_skip(client: httpx.AsyncClient) -> None:
    by_path = paths(await call(client, "GET", "/groups", ROOT, params={"order_by": "path", "sort": "desc"}))
    assert by_path == sorted(by_path, key=lambda p: p.rsplit("/", 1)[-1], reverse=True)
    bad = await call(client, "GET", "/groups", ROOT, params={"order_by": "size"})
    assert (bad.status_code, bad.json()) == (400, {"error": "order_by does not have a valid value"})
    found = paths(await call(client, "GET", "/groups", ROOT, params={"search": "SEC"}))
    assert found == ["acme/security"]


async def test_statistics_for_administrators_only(client: httpx.AsyncClient) -> None:
    admin = (
        await call(client, "GET", "/groups", ROOT, params={"statistics": "true", "search": "acme"})
    ).json()
    acme = next(g for g in admin if g["full_path"] == "acme")
    assert set(acme["statistics"]) == {
        "storage_size",
        "repository_size",
        "wiki_size",
        "lfs_objects_size",
        "job_artifacts_size",
        "packages_size",
        "snippets_size",
    }
    assert acme["statistics"]["storage_size"] > 0
    user = (await call(client, "GET", "/groups", ALICE, params={"statistics": "true"})).json()
    assert all("statistics" not in g for g in user)


async def test_custom_attributes_filter_and_display(app, client: httpx.AsyncClient) -> None:  # type: ignore[no-untyped-def]
    app.state.store.group_by_path("acme/infra").custom_attributes["tier"] = "gold"
    app.state.store.touch()
    found = await call(
        client,
        "GET",
        "/groups",
        ROOT,
        params={"custom_attributes[tier]": "gold", "with_custom_attributes": "true"},
    )
    assert paths(found) == ["acme/infra"]
    assert found.json()[0]["custom_attributes"] == [{"key": "tier", "value": "gold"}]


async def test_subgroups_and_descendants(client: httpx.AsyncClient) -> None:
    subs = paths(await call(client, "GET", "/groups/acme/subgroups", ROOT))
    assert subs == ["acme/infra", "acme/platform", "acme/security"]
    anonymous = paths(await call(client, "GET", "/groups/acme/subgroups"))
    assert anonymous == ["acme/platform"]
    created = await call(
        client, "POST", "/groups", ROOT, json={"name": "Deep", "path": "deep", "parent_id": 27}
    )
    assert created.status_code == 201
    descendants = paths(
        await call(
            client,
            "GET",
            "/groups/acme/descendant_groups",
            ROOT,
            params={"order_by": "id", "skip_groups[]": "28"},
        )
    )
    assert descendants == ["acme/platform", "acme/security", "acme/platform/deep"]
    subs_only = paths(await call(client, "GET", "/groups/acme/subgroups", ROOT, params={"search": "deep"}))
    assert subs_only == []
    owned = paths(await as_sudo(client, "GET", "/groups/acme/subgroups", "frank", params={"owned": "true"}))
    assert owned == []
    hidden = await call(client, "GET", "/groups/hidden-lab/subgroups", ALICE)
    assert (hidden.status_code, hidden.json()) == (404, {"message": "404 Group Not Found"})


async def test_group_projects_parameters(client: httpx.AsyncClient) -> None:
    async def names(path: str, headers: dict[str, str] = ROOT, **params: object) -> list[str]:
        response = await call(client, "GET", path, headers, params=params)
        assert response.status_code == 200, response.text
        return [p["path_with_namespace"] for p in response.json()]

    direct = await names("/groups/acme/projects", with_shared="false", order_by="path", sort="asc")
    assert direct == ["acme/handbook", "acme/legacy-app"]
    with_shared = await names("/groups/acme/projects", order_by="path", sort="asc")
    assert with_shared == ["acme/handbook", "opensource/labdeck", "acme/legacy-app", "hidden-lab/secrets"]
    alice_view = await names("/groups/acme/projects", ALICE, order_by="path", sort="asc")
    assert "hidden-lab/secrets" not in alice_view
    nested = await names(
        "/groups/acme/projects",
        include_subgroups="true",
        with_shared="false",
        archived="false",
        visibility="public",
        order_by="name",
        sort="asc",
    )
    assert nested == ["acme/platform/api-gateway", "acme/handbook", "acme/platform/web-portal"]
    assert await names("/groups/acme/projects", search="hand") == ["acme/handbook"]
    assert await names("/groups/acme/projects", with_security_reports="true") == []
    assert await names("/groups/acme/projects", starred="true") == []
    simple = (await call(client, "GET", "/groups/acme/projects", ROOT, params={"simple": "true"})).json()
    assert "visibility" not in simple[0] and {"id", "web_url", "name", "path"} <= set(simple[0])


async def test_shared_projects_have_another_namespace(client: httpx.AsyncClient) -> None:
    shared = (
        await call(client, "GET", "/groups/acme/projects/shared", ROOT, params={"order_by": "id"})
    ).json()
    assert [p["path_with_namespace"] for p in shared] == ["hidden-lab/secrets", "opensource/labdeck"]
    for project in shared:
        assert project["namespace"]["full_path"] != "acme" and "web_url" in project["namespace"]
    anonymous = (await call(client, "GET", "/groups/acme/projects/shared")).json()
    assert [p["path_with_namespace"] for p in anonymous] == ["opensource/labdeck"]
    refused = await call(
        client, "GET", "/groups/acme/projects/shared", ROOT, params={"order_by": "similarity"}
    )
    assert refused.status_code == 400


async def test_similarity_order_is_behind_its_flag(client: httpx.AsyncClient) -> None:
    params = {
        "order_by": "similarity",
        "search": "a",
        "include_subgroups": "true",
        "with_shared": "false",
        "sort": "asc",
    }
    off = [
        p["path"] for p in (await call(client, "GET", "/groups/acme/projects", ROOT, params=params)).json()
    ]
    refused = await call(client, "POST", "/features/similarity_search", ALICE, data={"value": "true"})
    assert refused.status_code == 403
    flag = await call(client, "POST", "/features/similarity_search", ROOT, data={"value": "true"})
    assert flag.status_code == 201 and flag.json()["state"] == "on"
    on = [p["path"] for p in (await call(client, "GET", "/groups/acme/projects", ROOT, params=params)).json()]
    assert on != off and on[0] == "api-gateway"  # "a" is a prefix of its name and path
    unsearched = {k: v for k, v in params.items() if k != "search"}
    by_name = [
        p["name"]
        for p in (await call(client, "GET", "/groups/acme/projects", ROOT, params=unsearched)).json()
    ]
    assert by_name == sorted(by_name, key=str.lower)


async def test_group_resources_need_authentication(client: httpx.AsyncClient) -> None:
    for path in ("/groups/acme/members", "/groups/acme/members/all", "/projects/acme%2Fhandbook/members",
                 "/groups/acme/labels", "/groups/acme/badges", "/groups/acme/iterations",
                 "/projects/acme%2Fhandbook/iterations", "/groups/acme/variables", "/admin/ci/variables",
                 "/groups/acme/billable_members", "/groups/acme/export_relations/status"):
        response = await call(client, "GET", path)
        assert (response.status_code, response.json()) == (401, {"message": "401 Unauthorized"}), path
    assert (await call(client, "GET", "/groups/acme/projects")).status_code == 200  # public data
