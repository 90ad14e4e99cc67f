"""`:groups`' Members and Variables tabs are the members and variables panes of every owner (issue 23): the
pane follows the group chosen in the tree (its data read again, the former group's revealed values and
overrides forgotten, billable members only for a top-level group), `r` reads it again past the cache and
dates the data, keys for the whole list work from the tree while a row key says to move to the list, and
the group-only modes (billable, override) are not offered for a project's members."""

from __future__ import annotations

from typing import Any

from areas_fixtures import cells, on_variable, open_groups, open_view, pane, show_tab
from snapshot_apps import make_app, messages, sandbox, settle, until
from test_groups_screen import SIZE
from test_project_view import Sandbox
from test_shell_navigation import footer_actions

from labdeck.tui.kit.forms import FormScreen
from labdeck.tui.kit.members_pane import MembersPane
from labdeck.tui.kit.owner import Owner
from labdeck.tui.screens.groups.groups import GroupsScreen


def gets(app: Any, part: str) -> int:
    return sum(e.method == "GET" and part in e.path for e in app.request_log.entries)


async def test_the_members_pane_follows_the_group_chosen_in_the_tree() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "hidden-lab")
        await show_tab(pilot, screen, "members")
        members = pane(screen, "members")
        assert members.owner == Owner("groups", screen.group.id, "hidden-lab")  # type: ignore[union-attr]
        screen.table("members").focus()
        table = screen.table("members")
        table.move_cursor(cells(screen, "members").index("bob"))
        await pilot.press("O")
        await settle(pilot)
        assert members.overrides == {3}
        await pilot.press("B")
        await settle(pilot)
        assert members.billable and set(cells(screen, "members", 2)) == {"billable"}
        await pilot.press("a")  # billable members are not added
        await pilot.pause()
        assert app.screen is screen
        assert any("Billable members are not added here" in m for m in messages(app))
        await screen.open_path("acme/platform")  # a subgroup: its direct members, not billable ones
        await settle(pilot)
        assert screen.pane("members") is members and members.owner.where == "acme/platform"
        assert not members.billable and members.overrides == set() and cells(screen, "members") == []
        screen.table("members").focus()
        await pilot.press("B")
        await settle(pilot)
        assert not members.billable
        assert any("Billable members are listed for top-level groups only" in m for m in messages(app))


async def test_revealed_values_are_forgotten_with_the_group() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await on_variable(pilot, screen, "DEPLOY_TOKEN")
        await pilot.press("m")
        await pilot.pause()
        assert "s3cr3t-deploy-token-42" in cells(screen, "variables", 1)
        await screen.open_path("acme/platform")
        await settle(pilot)
        await screen.open_path("acme")
        await settle(pilot)
        assert pane(screen, "variables").owner.where == "acme"
        assert "DEPLOY_TOKEN" in cells(screen, "variables")
        assert "s3cr3t-deploy-token-42" not in cells(screen, "variables", 1)


async def test_r_reads_the_pane_again_and_dates_the_data() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "members")
        screen.table("members").focus()
        before = gets(app, "/members")
        assert before >= 1
        await show_tab(pilot, screen, "labels")
        await show_tab(pilot, screen, "members")  # shown again for the same group: nothing is read
        assert gets(app, "/members") == before
        screen.data_loaded_at = None
        screen.table("members").focus()
        await pilot.press("r")
        await settle(pilot)
        assert gets(app, "/members") == before + 1  # past the cache
        assert screen.data_loaded_at is not None


async def test_list_keys_work_from_the_tree_and_row_keys_say_where_to_go() -> None:
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot, "hidden-lab")
        await show_tab(pilot, screen, "members")
        screen.tree.focus()
        await pilot.press("x")
        await settle(pilot)
        assert isinstance(app.screen, GroupsScreen)  # no confirmation about a row the tree hid
        assert any("group tree has focus" in m for m in messages(app))
        await pilot.press("a")
        await settle(pilot)
        assert isinstance(app.screen, FormScreen)  # the add form: it acts on no row


async def test_a_projects_members_have_no_group_modes() -> None:
    project_sandbox = Sandbox()
    app = make_app(transport_factory=project_sandbox.factory)
    async with app.run_test(size=SIZE) as pilot:
        await open_view(pilot, project_sandbox, tab="members")
        members = app.screen.query_one(MembersPane)
        members.view.table.focus()
        await settle(pilot)
        assert members.owner.kind == "projects"
        assert members.check_action("toggle_billable", ()) is False
        assert members.check_action("toggle_override", ()) is False
        shown = {b.binding.action for b in app.screen.active_bindings.values() if b.enabled}
        assert {"toggle_billable", "toggle_override"}.isdisjoint(shown) and "toggle_inherited" in shown
        await pilot.press("B")
        await settle(pilot)
        assert gets(app, "billable") == 0


async def test_a_list_pane_follows_the_group_and_r_reads_it_past_the_cache() -> None:
    """The Labels tab (a `ListPane`, as Projects, Subgroups, Badges, Iterations and Export and import are):
    made once, shown each group chosen in the tree, read again past the cache by `r`; the relations export
    shown for one group is forgotten with it."""
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "transfer")
        transfer = pane(screen, "transfer")
        job = transfer.action_export_relations()
        await app.jobs.wait(job)
        await settle(pilot)
        assert transfer.relations and cells(screen, "transfer")
        await show_tab(pilot, screen, "labels")
        labels = pane(screen, "labels")
        await screen.open_path("acme/platform")
        await settle(pilot)
        platform = screen.group
        assert platform is not None and screen.pane("labels") is labels
        assert labels.owner.where == "acme/platform"
        assert gets(app, f"/groups/{platform.id}/labels") == 1
        screen.table("labels").focus()
        await pilot.press("r")
        await settle(pilot)
        assert gets(app, f"/groups/{platform.id}/labels") == 2  # past the cache
        await show_tab(pilot, screen, "transfer")
        assert screen.pane("transfer") is transfer and transfer.owner.where == "acme/platform"
        assert cells(screen, "transfer") == []  # acme's export is not shown as this group's


async def test_tab_goes_from_the_tree_straight_to_the_list_and_back() -> None:
    """The tab bar is no focus stop (tabs switch with `[` and `]`): tab from the tree reaches the list of
    the tab in front, as the "press tab to move to the table" hint says, and its keys are in the footer."""
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "members")
        screen.tree.focus()
        await pilot.press("tab")
        assert app.focused is screen.table("members")
        await pilot.pause()
        assert "add_member" in footer_actions(screen)
        await pilot.press("shift+tab")
        assert app.focused is screen.tree


async def test_brackets_with_a_list_focused_focus_the_list_of_each_tab() -> None:
    """`]` and `[` from a tab's list: the list of the tab they show takes the focus (it was left on the
    hidden list, so `a` did nothing and escape left `:groups`); from the tree the tree keeps it."""
    _asgi, factory = sandbox()
    app = make_app(transport_factory=factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_groups(pilot)
        await show_tab(pilot, screen, "iterations")
        screen.table("iterations").focus()
        for key, tab in (("left_square_bracket", "variables"), ("left_square_bracket", "badges"),
                         ("right_square_bracket", "variables")):
            await pilot.press(key)
            await until(pilot, lambda tab=tab: app.focused is screen.table(tab), f"the {tab} list focused")
            if tab == "badges":
                assert "add" in footer_actions(screen)  # its keys are offered
        screen.tree.focus()
        await pilot.press("left_square_bracket")
        await settle(pilot)
        assert screen.active_tab == "badges" and app.focused is screen.tree


def test_a_read_only_list_pane_is_a_binding_and_a_declaration() -> None:
    """The Iterations tab has no service method and no `read`: it names its binding, and the feature it
    needs is the one its endpoint holds (issue 35)."""
    from labdeck.api import bindings
    from labdeck.domain.features import ITERATIONS
    from labdeck.tui.screens.groups.panes.iterations import IterationsPane

    assert IterationsPane.LISTING is bindings.GROUP_ITERATIONS
    assert "read" not in vars(IterationsPane) and "FEATURE" not in vars(IterationsPane)
    pane = IterationsPane(Owner("groups", 1, "acme"))
    assert pane.feature is ITERATIONS
