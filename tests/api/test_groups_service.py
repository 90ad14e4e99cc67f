"""`GroupsService` against the sandbox: listings with their parameters, the tree, group projects and
shared projects."""

from __future__ import annotations

import pytest
from groups_sandbox import ALICE_TOKEN, Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api.errors import BadRequest, NotFound
from labdeck.api.groups import GroupQuery, GroupsService, ProjectQuery
from labdeck.domain.paths import segment as group_ref


def test_group_ref_encodes_full_paths() -> None:
    assert group_ref(26) == "26" and group_ref("acme/platform") == "acme%2Fplatform"


def test_query_parameters() -> None:
    query = GroupQuery(search="x", skip_groups=(1, 2), owned=True, top_level_only=True,
                       custom_attributes={"tier": "gold"})
    assert query.params(top=True) == {"search": "x", "skip_groups": [1, 2], "owned": True,
                                      "top_level_only": True, "custom_attributes": {"tier": "gold"}}
    assert "top_level_only" not in query.params(top=False)
    shared = ProjectQuery(with_shared=False, include_subgroups=True, search="a").params(shared=True)
    assert shared == {"search": "a"}
    with pytest.raises(ValueError, match="similarity"):
        ProjectQuery(order_by="similarity").params(shared=True)


async def test_listings_and_tree(sandbox: Sandbox) -> None:
    service = GroupsService(sandbox.client())
    roots = await service.top_level_window().start()
    assert [g.full_path for g in roots] == ["acme", "hidden-lab", "opensource"]
    subgroups = await service.subgroups("acme")
    assert [g.full_path for g in subgroups] == ["acme/infra", "acme/platform", "acme/security"]
    assert all(g.parent_id == roots[0].id for g in subgroups)
    below = await service.subgroups(roots[0].id, GroupQuery(order_by="id", skip_groups=[28]))
    assert [g.full_path for g in below] == ["acme/platform", "acme/security"]
    stats = await service.list_groups(GroupQuery(search="acme", statistics=True, top_level_only=True))
    assert stats[0].statistics is not None and stats[0].statistics.storage_size


async def test_user_defaults_and_precedence(sandbox: Sandbox) -> None:
    service = GroupsService(sandbox.client(ALICE_TOKEN))
    owned = await service.list_groups(GroupQuery(owned=True, all_available=True))
    assert [g.full_path for g in owned] == ["opensource"]
    visible = await service.top_level_window(all_available=True).start()
    assert "hidden-lab" not in {g.full_path for g in visible}
    with pytest.raises(NotFound):
        await service.subgroups("hidden-lab")


async def test_get_group_and_projects(sandbox: Sandbox) -> None:
    service = GroupsService(sandbox.client())
    group = await service.get_group("acme/platform")
    assert group.full_path == "acme/platform" and group.statistics is None
    projects = await service.projects("acme", ProjectQuery(include_subgroups=True, with_shared=False,
                                                           order_by="path", sort="asc", archived=False))
    assert [p.path for p in projects] == ["api-gateway", "handbook", "terraform", "vault", "web-portal"]
    simple = await service.projects("acme", ProjectQuery(simple=True, search="hand"))
    assert [p.path for p in simple] == ["handbook"] and simple[0].visibility is None
    with pytest.raises(BadRequest):
        await service.projects("acme", ProjectQuery(visibility="secret"))  # type: ignore[arg-type]


async def test_listings_are_cached_until_refreshed(sandbox: Sandbox) -> None:
    client = sandbox.client()
    service = GroupsService(client)
    await service.subgroups("acme")
    before = len(client.request_log)
    await service.subgroups("acme")
    assert len(client.request_log) == before
    await service.subgroups("acme", refresh=True)
    assert len(client.request_log) == before + 1
