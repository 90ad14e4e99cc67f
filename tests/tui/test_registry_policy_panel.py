"""Pilot tests of the cleanup policy panel (`p` on `:registry`) at 80x24 against the tiny sandbox: the
simulation and the reasons in words, the live preview as values change, values GitLab refuses refused
before sending, and a confirmed save that the sandbox then holds."""

from __future__ import annotations

import json
from dataclasses import replace

import httpx
from snapshot_apps import make_app, settle, until
from test_registry_screen import Sandbox, open_repositories, text, type_into
from textual.widgets import Select, Static
from tiny_sandbox import Sandbox as TinySandbox

from labdeck.sandbox.seed.cleanup_policy import policy_data
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.registry.policy import CleanupPolicyScreen

SIZE = (80, 24)


def gateway_policy(sandbox: Sandbox):  # type: ignore[no-untyped-def]
    project = sandbox.store.project_by_path("acme/platform/api-gateway")
    return policy_data(sandbox.store).policies[project.id]


async def open_panel(pilot, sandbox: Sandbox) -> CleanupPolicyScreen:  # type: ignore[no-untyped-def]
    repos = await open_repositories(pilot, sandbox)
    repos.table.focus()
    await pilot.press("p")
    await settle(pilot, rounds=3)
    panel = pilot.app.screen
    assert isinstance(panel, CleanupPolicyScreen)
    return panel


async def test_the_panel_simulates_and_previews_edits_live() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_panel(pilot, sandbox)
        assert text(panel, "#policy-title") == "Cleanup policy of acme/platform/api-gateway"
        summary = text(panel, "#policy-summary")
        assert summary.startswith("enabled: next run deletes") and "per-run limit 200" in summary
        assert panel.query_one("#policy-keep-n", Select).value == "5"
        assert panel.sim is not None
        before = panel.sim.deleted_count
        panel.query_one("#policy-keep-n", Select).value = "1"
        await pilot.pause()
        assert panel.sim.deleted_count > before  # the preview follows the edit without a request
        await type_into(pilot, "#policy-regex", "nothing-.*")
        await settle(pilot)
        assert "matches no tag" in text(panel, "#policy-summary")
        await pilot.pause(0.3)
        rows = panel.table.rows
        assert rows and not any(row.deleted for row in rows)
        # everything fits at 80x24: the fields and a table with room for rows
        assert panel.table.region.height >= 3 and panel.table.region.bottom <= 24
        assert panel.query_one("#policy-regex").region.right <= 80


async def test_refused_values_are_not_sent_and_a_save_reaches_the_sandbox() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_panel(pilot, sandbox)
        saved_before = gateway_policy(sandbox)
        await type_into(pilot, "#policy-regex", "(a")
        await settle(pilot)
        assert "GitLab would refuse" in text(panel, "#policy-errors")
        await pilot.press("ctrl+s")
        await settle(pilot)
        assert app.screen is panel  # no confirmation: nothing to send
        assert gateway_policy(sandbox) == saved_before
        await type_into(pilot, "#policy-regex", "pr-.*")
        panel.query_one("#policy-older-than", Select).value = "7d"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        app.screen.query_one("#confirm").press()
        await settle(pilot, rounds=3)
        saved = gateway_policy(sandbox)
        assert (saved.name_regex, saved.older_than, saved.keep_n) == ("pr-.*", "7d", 5)
        assert panel.query_one("#policy-older-than", Select).value == "7d"  # read back after the save


async def test_storage_view_sorted_by_size_opens_a_projects_policy() -> None:
    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.screens.registry.registry import RegistryScreen
    from labdeck.tui.screens.registry.storage import RegistryStorageScreen

    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        repos = RegistryScreen(AreaRequest(scope="acme"), now=sandbox.now)
        await app.push_screen(repos)
        await settle(pilot)
        repos.table.focus()
        await pilot.press("t")
        await settle(pilot, rounds=3)
        storage = app.screen
        assert isinstance(storage, RegistryStorageScreen)
        rows = storage.table.rows
        sizes = [r.project.registry_size for r in rows]
        assert sizes and sizes == sorted(sizes, reverse=True)
        gateway = next(r for r in rows if r.project.path == "acme/platform/api-gateway")
        assert gateway.project.policy_state == "enabled" and gateway.frees is not None
        assert 0 < gateway.frees.bytes <= (gateway.project.registry_size or 0)
        assert "Registry storage of acme:" in text(storage, "#storage-title")
        # `r` reads the instance again (the list cache's fresh entry would give the same rows)
        record = sandbox.store.project_by_path("acme/infra/terraform")
        from labdeck.domain.cleanup_policy import Policy
        policy_data(sandbox.store).policies[record.id] = Policy(enabled=True, cadence="7d")
        sandbox.store.touch()
        storage.table.focus()
        await pilot.press("r")
        await settle(pilot, rounds=3)
        states = {r.project.path: r.project.policy_state for r in storage.table.rows}
        assert states["acme/infra/terraform"] == "enabled"
        gateway = next(r for r in storage.table.rows if r.project.path == "acme/platform/api-gateway")
        storage.table.focus()
        storage.table.move_cursor(next(i for i, r in enumerate(storage.table.visible_rows) if r is gateway))
        await pilot.press("enter")
        await settle(pilot, rounds=3)
        assert isinstance(app.screen, CleanupPolicyScreen)
        assert text(app.screen, "#policy-title") == "Cleanup policy of acme/platform/api-gateway"


class RecordingSandbox(TinySandbox):
    """The tiny sandbox; the JSON body of every PUT the app sends is kept in `puts`."""

    def __init__(self) -> None:
        super().__init__()
        self.puts: list[object] = []

    def factory(self, settings: object) -> httpx.AsyncBaseTransport:
        puts = self.puts

        class Recording(httpx.ASGITransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                if request.method == "PUT":
                    puts.append(json.loads(request.content or b"null"))
                return await super().handle_async_request(request)

        return Recording(self.asgi)


PORTAL = "acme/platform/web-portal"


def shown(select: Select) -> str:  # type: ignore[type-arg]
    """What a Select shows of its value (the label drawn in it)."""
    return str(select.query_one("#label", Static).render())


async def open_policy_of(pilot, sandbox: TinySandbox, path: str) -> CleanupPolicyScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    panel = CleanupPolicyScreen(path, now=sandbox.now)
    await pilot.app.push_screen(panel)
    await until(pilot, lambda: panel.loaded is not None, "the policy read")
    return panel


async def test_a_value_labdeck_did_not_offer_is_shown_and_kept_on_save() -> None:
    """Issue 32 item 2: a policy stored with `older_than: 60d` (GitLab 14.4+) showed "none" in the editor
    and was saved back as null with nothing touched. Now the editor shows 60d, and a save after changing
    only keep_n sends keep_n alone: the policy keeps 60d."""
    sandbox = RecordingSandbox()
    record = sandbox.store.project_by_path(PORTAL)
    policies = policy_data(sandbox.store).policies
    policies[record.id] = replace(policies[record.id], older_than="60d", keep_n=10)
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_policy_of(pilot, sandbox, PORTAL)
        older = panel.query_one("#policy-older-than", Select)
        assert older.value == "60d" and shown(older) == "60d"  # shown before saving
        panel.query_one("#policy-keep-n", Select).value = "25"
        await settle(pilot)
        await pilot.press("ctrl+s")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the confirmation")
        said = str(app.screen.query_one(".confirm-message", Static).render())
        assert "It changes keep_n 10 → 25 (nothing else is sent)" in said
        app.screen.query_one("#confirm").press()
        await settle(pilot, rounds=3)
        assert sandbox.puts == [{"container_expiration_policy_attributes": {"keep_n": 25}}]
        saved = policies[record.id]
        assert (saved.keep_n, saved.older_than) == (25, "60d")
        assert panel.query_one("#policy-older-than", Select).value == "60d"  # read back after the save


async def test_a_value_labdeck_does_not_know_is_shown_as_it_is_and_never_sent() -> None:
    """A value of a newer GitLab (here `45d`, `2month` and keep_n 3, stored as such): each is shown with a
    note, the policy read back from the editor is the stored one, and only a field the operator changes
    would be sent."""
    sandbox = RecordingSandbox()
    record = sandbox.store.project_by_path(PORTAL)
    policies = policy_data(sandbox.store).policies
    policies[record.id] = replace(policies[record.id], older_than="45d", cadence="2month", keep_n=3)
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        panel = await open_policy_of(pilot, sandbox, PORTAL)
        for key, value in (("older-than", "45d"), ("cadence", "2month"), ("keep-n", "3")):
            label = shown(panel.query_one(f"#policy-{key}", Select))
            assert label == f"{value} (not a value labdeck knows)", key
        loaded = panel.loaded
        assert loaded is not None and panel.read_policy() == loaded
        assert "GitLab would refuse" not in text(panel, "#policy-errors")
        panel.query_one("#policy-enabled", Select).value = "off"
        await settle(pilot)
        assert panel.read_policy().changed_attributes(loaded) == {"enabled": False}


async def test_60d_is_offered_from_gitlab_14_4_only() -> None:
    """The instance's version is known once connected: GitLab 14.3 has no `60d` (commit c7be549c came in
    14.4), so the editor does not offer it there; 14.4 and later do."""
    for version, offered in (("14.3", False), ("14.4", True)):
        sandbox = TinySandbox(gitlab_version=version)
        app = make_app(transport_factory=sandbox.factory)
        async with app.run_test(size=SIZE) as pilot:
            panel = await open_policy_of(pilot, sandbox, "acme/infra/terraform")
            session = app.session
            await until(pilot, lambda: session.capabilities.version is not None,  # noqa: B023  # awaited here
                        "the version read")
            values = [value for _label, value in panel.choices("policy-older-than")]
            assert ("60d" in values) is offered, version
            assert values[0] == "none" and {"7d", "14d", "30d", "90d"} <= set(values)
