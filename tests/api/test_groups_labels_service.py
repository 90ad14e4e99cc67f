"""`GroupLabelsService`, `BadgesService` and a group's iterations (read from their binding, no service
method) against the sandbox."""

from __future__ import annotations

import pytest
from groups_sandbox import ALICE_TOKEN, Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api import bindings
from labdeck.api.badges import BadgesService, BadgeUrlError
from labdeck.api.errors import Conflict, NotFound
from labdeck.api.labels import GroupLabelsService
from labdeck.api.services import Services
from labdeck.domain.colours import ColourError


async def test_label_listing_options(sandbox: Sandbox) -> None:
    service = GroupLabelsService(sandbox.client())
    names = [lb.name for lb in await service.list_labels("acme/platform")]
    assert names == ["api", "bug", "documentation", "feature"]
    own = await service.list_labels("acme/platform", include_ancestor_groups=False)
    assert [lb.name for lb in own] == ["api"]
    below = await service.list_labels("acme", include_descendant_groups=True, with_counts=True)
    assert "api" in {lb.name for lb in below} and below[0].open_issues_count is not None
    assert [lb.name for lb in await service.list_labels("acme", search="broken")] == ["bug"]


async def test_label_lifecycle(sandbox: Sandbox) -> None:
    client = sandbox.client(ALICE_TOKEN)
    service = GroupLabelsService(client)
    made = await service.create_label("opensource", "triaged", "SeaGreen", "Looked at")
    assert (made.color, made.description) == ("#2E8B57", "Looked at")
    assert "triaged" in {lb.name for lb in await service.list_labels("opensource")}
    with pytest.raises(Conflict):
        await service.create_label("opensource", "triaged", "red")
    renamed = await service.update_label("opensource", "triaged", new_name="triage done", color="#000")
    assert (renamed.name, renamed.color) == ("triage done", "#000")  # kept as sent
    listed = {lb.name: lb.id for lb in await service.list_labels("opensource")}  # what the tab re-reads
    assert listed["triage done"] == renamed.id and "triaged" not in listed
    await service.delete_label("opensource", renamed.id)
    assert renamed.id not in {lb.id for lb in await service.list_labels("opensource")}
    with pytest.raises(NotFound):
        await service.delete_label("opensource", renamed.id)


async def test_label_checks_before_sending(sandbox: Sandbox) -> None:
    client = sandbox.client()
    service = GroupLabelsService(client)
    with pytest.raises(ColourError):
        await service.create_label("acme", "x", "blurple")
    with pytest.raises(ValueError):
        await service.update_label("acme", "bug")
    assert len(client.request_log) == 0


async def test_subscriptions_report_no_change(sandbox: Sandbox) -> None:
    service = GroupLabelsService(sandbox.client(ALICE_TOKEN))
    first = await service.set_subscription("acme", "bug", True)
    assert first is not None and first.subscribed is True
    assert await service.set_subscription("acme", "bug", True) is None  # the server's 304
    off = await service.set_subscription("acme", "bug", False)
    assert off is not None and off.subscribed is False
    assert await service.set_subscription("acme", "bug", False) is None


async def test_badges(sandbox: Sandbox) -> None:
    service = BadgesService(sandbox.client())
    listed = await service.list_badges("acme")
    assert [b.name for b in listed] == ["pipeline", "Coverage"]
    assert [b.name for b in await service.list_badges("acme", name="Coverage")] == ["Coverage"]
    assert await service.list_badges("acme", name="coverage") == []
    made = await service.create_badge(
        "acme", "https://l/%{project_id}", "https://i/%{default_branch}", name="new"
    )
    handbook = sandbox.store.project_by_path("acme/handbook")
    assert (
        made.rendered_link_url == f"https://l/{handbook.id}" and made.rendered_image_url == "https://i/main"
    )
    updated = await service.update_badge("acme", made.id, link_url="https://other")
    assert updated.link_url == "https://other" and updated.image_url == "https://i/%{default_branch}"
    assert (await service.get_badge("acme", made.id)).link_url == "https://other"
    await service.delete_badge("acme", made.id)
    with pytest.raises(NotFound):
        await service.get_badge("acme", made.id)
    preview = await service.render("acme", "https://x/%{project_path}", "https://x/%{commit_sha}")
    assert preview.rendered_link_url == "https://x/acme/handbook"
    assert len((preview.rendered_image_url or "").removeprefix("https://x/")) == 40
    with pytest.raises(BadgeUrlError) as refused:  # never sent: GitLab allows http(s) only
        await service.render("acme", "%{project_path}", "https://x/b.svg")
    assert refused.value.errors == {"link_url": ["is blocked: Only allowed schemes are http, https"]}
    with pytest.raises(BadgeUrlError):
        await service.create_badge("acme", "https://ok", "javascript:alert(1)")
    with pytest.raises(BadgeUrlError):
        await service.update_badge("acme", 1, image_url="ftp://x/y")


async def test_iterations(sandbox: Sandbox) -> None:
    services = Services(sandbox.client())
    opened = await services.read(bindings.GROUP_ITERATIONS, "acme", params={"state": "opened"})
    assert [(it.title, it.state_label) for it in opened] == [
        ("Sprint 42", "started"),
        ("Sprint 43", "upcoming"),
    ]
    own = await services.read(bindings.GROUP_ITERATIONS, "acme/platform",
                              params={"include_ancestors": False, "search": "launch"})
    assert [it.title for it in own] == ["Platform launch"]
    closed = await services.read(bindings.GROUP_ITERATIONS, "acme", params={"state": "closed"})
    assert "Sprint 41" in [it.title for it in closed] and all(it.state == 3 for it in closed)
