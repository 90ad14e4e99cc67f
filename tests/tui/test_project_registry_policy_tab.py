"""Pilot tests of the project view's Registry policy tab at 80x24 against the tiny sandbox: the policy's
values, why it did or did not run, what the next run deletes per repository (the service's own
simulation), `p` and `e` opening the `:registry` policy panel (the editor focused for `e`), the tab read
again when the panel closes, read-only mode hiding the editing key, and the instance's time by default."""

from __future__ import annotations

import time
from typing import Any

from snapshot_apps import make_app, sandbox, settle
from textual.widgets import Select, Static
from textual.widgets._footer import FooterKey

from labdeck.api.models.projects import Project
from labdeck.sandbox.clock import ManualClock
from labdeck.tui.screens.projects.registry_policy import RegistryPolicyTab, RepositorySummary
from labdeck.tui.screens.projects.view import TABS, ProjectViewScreen
from labdeck.tui.screens.registry.policy import CleanupPolicyScreen
from labdeck.tui.widgets.footer import LabdeckFooter

SIZE = (80, 24)
GATEWAY = "acme/platform/api-gateway"
DAY = 86_400


def project_of(asgi: Any, path: str) -> Project:
    record = asgi.state.store.project_by_path(path)
    return Project(id=record.id, name=record.name, path=record.path, path_with_namespace=path,
                   name_with_namespace=record.name_with_namespace, default_branch="main")


def text_of(tab: RegistryPolicyTab, selector: str) -> str:
    return str(tab.query_one(selector, Static).render())


async def open_tab(pilot: Any, asgi: Any, path: str = GATEWAY, *,
                   clocked: bool = True) -> tuple[ProjectViewScreen, RegistryPolicyTab]:
    await settle(pilot)
    now = (lambda: asgi.state.store.now()) if clocked else None
    view = ProjectViewScreen(project_of(asgi, path), tab="registry", now=now)
    await pilot.app.push_screen(view)
    await settle(pilot, rounds=2)
    return view, view.query_one(RegistryPolicyTab)


async def test_the_tab_shows_the_policy_why_and_what_the_next_run_deletes_at_80x24() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        view, tab = await open_tab(pilot, asgi)
        assert "registry" in TABS and view.tabs.active == "tab-registry"
        values = text_of(tab, "#registry-policy-values")
        for part in ("enabled", "every 1d", "keep newest 5", "older than 30d", "next_run_at: 20"):
            assert part in values
        assert tab.sim is not None and tab.sim.policy is not None
        summary = text_of(tab, "#registry-policy-summary")
        assert f"next run deletes {tab.sim.deleted_count:,} tags" in summary
        assert all(line in summary for line in tab.sim.why)  # why it did or did not run, in words
        expected = await app.session.services.cleanup_policy.simulate(GATEWAY, now=asgi.state.store.now())
        rows = tab.view.table.rows
        assert rows and all(isinstance(r, RepositorySummary) for r in rows)
        assert {r.name: r.deleted for r in rows} == {
            (r.repository.path or r.repository.display_name): r.plan.deleted_count
            for r in expected.repositories if r.plan is not None}
        assert sum(r.deleted or 0 for r in rows) == expected.deleted_count > 0
        # at 80x24 the table shows rows and the footer offers both keys
        table = tab.view.table
        assert table.has_focus and table.region.height >= 3 and table.region.bottom <= SIZE[1] - 2
        shown = [key.action for key in app.screen.query_one(LabdeckFooter).query(FooterKey)]
        assert shown[:2] == ["open_policy", "edit_policy"], shown


async def test_p_opens_the_panel_e_its_editor_and_the_tab_reads_again_after() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        view, tab = await open_tab(pilot, asgi)
        first = tab.sim
        await pilot.press("p")
        await settle(pilot, rounds=2)
        panel = app.screen
        assert isinstance(panel, CleanupPolicyScreen) and panel.project == tab.project.id
        assert panel.focused is panel.table
        await pilot.press("escape")
        await settle(pilot, rounds=2)
        assert app.screen is view and tab.sim is not first  # read again: the panel may have saved
        await pilot.press("e")
        await settle(pilot, rounds=2)
        editor = app.screen
        assert isinstance(editor, CleanupPolicyScreen)
        assert editor.focused is editor.query_one("#policy-enabled", Select)


async def test_read_only_hides_editing_but_keeps_the_preview() -> None:
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory, read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        view, tab = await open_tab(pilot, asgi)
        assert tab.check_action("edit_policy", ()) is False
        assert tab.check_action("open_policy", ()) is not False
        await pilot.press("e")
        await settle(pilot)
        assert app.screen is view
        await pilot.press("p")
        await settle(pilot, rounds=2)
        assert isinstance(app.screen, CleanupPolicyScreen)
        assert app.screen.check_action("save", ()) is False


async def test_the_tab_simulates_at_the_instance_time_after_its_clock_moved() -> None:
    clock = ManualClock()
    asgi, factory = sandbox(clock)
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        answer = await app.session.client.request("GET", "/version")
        assert answer.status_code == 200
        clock.advance(40 * DAY)  # as POST /-/sandbox/clock moves the one clock
        started = time.monotonic()
        _view, tab = await open_tab(pilot, asgi, clocked=False)
        assert tab.sim is not None
        # The instance's time is told from its last `Date` and this machine's clock, which goes on while the
        # sandbox's stands still: the two differ by the `Date`'s rounding plus how long the test took.
        waited = time.monotonic() - started
        assert abs((tab.sim.now - asgi.state.store.now()).total_seconds()) <= 1.5 + waited


async def test_the_simulation_is_read_when_the_tab_is_first_shown() -> None:
    """A project's tags can be many: opening the project view on another tab reads no policy."""
    asgi, factory = sandbox(ManualClock())
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        view = ProjectViewScreen(project_of(asgi, GATEWAY), tab="members")
        await app.push_screen(view)
        await settle(pilot, rounds=2)
        tab = view.query_one(RegistryPolicyTab)
        assert tab.sim is None
        await pilot.press("right_square_bracket")  # members -> variables -> registry
        await pilot.press("right_square_bracket")
        await settle(pilot, rounds=2)
        assert view.tabs.active == "tab-registry" and tab.sim is not None and tab.view.table.has_focus


async def test_the_tab_shows_each_stored_value_as_it_is() -> None:
    """`older_than: 60d` (GitLab 14.4+) is shown as 60d; a value labdeck does not know (a newer GitLab's) is
    shown as it is, with a note, never as "none" or as another value (issue 32 item 2)."""
    from dataclasses import replace

    from labdeck.sandbox.seed.cleanup_policy import policy_data

    asgi, factory = sandbox(ManualClock())
    store = asgi.state.store
    portal = store.project_by_path("acme/platform/web-portal")
    policies = policy_data(store).policies
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        _view, tab = await open_tab(pilot, asgi, "acme/platform/web-portal")
        assert "older than 60d" in text_of(tab, "#registry-policy-values")
        policies[portal.id] = replace(policies[portal.id], older_than="45d", keep_n=3)
        store.touch()
        tab.reload()
        await settle(pilot, rounds=2)
        values = text_of(tab, "#registry-policy-values")
        assert "keep newest 3 (not a value labdeck knows)" in values
        assert "older than 45d (not a value labdeck knows)" in values
