"""Pilot tests of the project view's Members tab (direct and inherited, add by username, change level,
remove with the username typed), the administrators' `:pages` view of every Pages domain, and the fork
dialog taking a namespace id as well as a path."""

from __future__ import annotations

from areas_fixtures import open_view
from snapshot_apps import jump_to, make_app, messages, press_for, sandbox_settings, settle, type_to_confirm
from test_project_view import Sandbox
from textual.widgets import Input, Select

from labdeck.tui.jobs import JobState
from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.kit.members_pane import MembersPane as MembersTab
from labdeck.tui.screens.admin.pages_domains import PagesAdminScreen
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.projects.dialogs import ForkDialog, fork_target
from labdeck.tui.screens.projects.forks import ForksTab

SIZE = (140, 44)
GATEWAY = "acme/platform/api-gateway"


def usernames(tab: MembersTab) -> list[str]:
    return [m.username for m in tab.view.table.visible_rows]


async def test_members_tab_adds_changes_and_removes() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_view(pilot, sandbox, tab="members")
        tab = app.screen.query_one(MembersTab)
        assert usernames(tab) == []
        await pilot.press("i")
        await settle(pilot)
        assert "carol" in usernames(tab)
        await pilot.press("i")
        await settle(pilot)
        form = await press_for(pilot, "a", FormScreen)
        assert 50 not in [value for _label, value in form.query_one("#field-access_level", Select)._options]
        form.query_one("#field-user_ids", Input).value = "ghost-user"
        assert form.submit() is True
        await settle(pilot)
        assert any("No user with the username ghost-user" in m for m in messages(app))
        assert usernames(tab) == []
        await pilot.press("a")
        await pilot.pause()
        app.screen.query_one("#field-user_ids", Input).value = "dave"
        assert app.screen.submit() is True
        await settle(pilot)
        project = sandbox.store.project_by_path(GATEWAY)
        assert usernames(tab) == ["dave"] and 5 in sandbox.store.project_members[project.id]
        tab.view.table.focus()
        await pilot.press("e")
        await pilot.pause()
        app.screen.query_one("#field-access_level", Select).value = 40
        assert app.screen.submit() is True
        await settle(pilot)
        assert tab.view.table.rows[0].access_level == 40
        confirm = await press_for(pilot, "x", TypeToConfirmScreen)
        confirm.query_one("#confirm-name", Input).value = "dav"
        await pilot.pause()
        assert confirm.query_one("#confirm").disabled
        await type_to_confirm(pilot, confirm, "dave")
        await settle(pilot)
        assert usernames(tab) == [] and 5 not in sandbox.store.project_members.get(project.id, {})


async def test_pages_admin_lists_every_domain_for_administrators() -> None:
    sandbox = Sandbox()
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "pages")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, PagesAdminScreen)
        domains = [d.domain for d in screen.table.visible_rows]
        assert set(domains) == set(sandbox.store.areas["pages_domains"].domains)
        assert {d.project_id for d in screen.table.visible_rows} == {2, 7}
        status = str(screen.query_one("#pages-admin-status").render())
        assert "5 domain(s)" in status and "expired" in status
        # GitLab's admin listing sends `certificate_expiration` (PagesDomainBasic): the expiry still shows
        assert "1 expired, 1 expiring within 30 days" in status
        expiry = {d.domain: str(screen.table.model.cells_of(d)[2]) for d in screen.table.visible_rows}
        assert expiry["old.acme.test"].startswith("expired ") and expiry["soon.acme.test"].startswith("in ")
        assert expiry["plain.acme.test"] == "no certificate"


async def test_pages_admin_refused_for_a_regular_user() -> None:
    sandbox = Sandbox()
    app = make_app(settings=sandbox_settings("glpat-sandbox-alice"), transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.open_area("pages")
        await pilot.pause()
        assert not isinstance(app.screen, PagesAdminScreen)
        screen = PagesAdminScreen()
        await app.push_screen(screen)
        await settle(pilot)
        assert screen.table.rows == []
        assert "403" in str(screen.query_one("#pages-admin-status").render())


def test_fork_target_reads_an_id_or_a_path() -> None:
    assert fork_target("30") == (30, None)
    assert fork_target(" /acme/platform/ ") == (None, "acme/platform")
    assert fork_target("") == (None, None)


async def test_fork_into_a_namespace_given_by_id() -> None:
    sandbox = Sandbox(async_delay=0.05)
    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        view = await open_view(pilot, sandbox, tab="forks")
        forks = view.query_one(ForksTab)
        forks.poll_initial = 0.05
        dialog = await press_for(pilot, "f", ForkDialog)
        opensource = sandbox.store.group_by_path("opensource")
        dialog.query_one("#fork-namespace", Input).value = str(opensource.id)
        dialog.query_one("#submit").press()
        await pilot.pause()
        job = forks.last_job
        assert job is not None
        await app.jobs.wait(job)
        assert job.state is JobState.SUCCEEDED, job.error
        assert job.results[0].item == "opensource/api-gateway"
