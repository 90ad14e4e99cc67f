"""The pane kit's policy, tested once where it lives (`tui/kit/pane_policy.py`): every pane of every screen
and tab hides its mutating actions in read-only mode and its premium actions on Community Edition, no pane
of `tui/screens` escapes the kit, and every tab of the project view is a pane of the kit over the project."""

from __future__ import annotations

from typing import Any

from snapshot_apps import make_app, settle
from textual.screen import ModalScreen
from textual.widgets import TabbedContent

from labdeck.domain.capabilities import Capabilities
from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.members_pane import MembersPane
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.screens.form_keys import FormKeys
from labdeck.tui.screens.shell.catalogue import screen_classes

SIZE = (160, 50)
GATEWAY = "acme/platform/api-gateway"
AREAS = [("groups", None), ("issues", None), ("registry", GATEWAY), ("deployments", GATEWAY), ("users", None),
         ("variables", None), ("pages", None), ("projects", None), ("journal", None), ("access", "acme")]


# (pane, owner kind) the walk must meet: the members and variables panes in `:groups`, the project view
# and `:variables`
OWNED = {("MembersPane", "groups"), ("VariablesPane", "groups"), ("MembersPane", "projects"),
         ("VariablesPane", "projects"), ("VariablesPane", "instance")}


def owned(panes: list[PanePolicy]) -> set[tuple[str, str]]:
    return {(type(pane).__name__, pane.owner.kind) for pane in panes if isinstance(pane, OwnerPane)}


def panes_of(app: Any) -> list[PanePolicy]:
    return [node for node in app.screen.walk_children(with_self=True) if isinstance(node, PanePolicy)]


def test_every_pane_of_the_screens_is_in_the_kit() -> None:
    """A screen or tab widget with keys of its own derives `PanePolicy` (a dialog is not a pane)."""
    outside = [cls.__qualname__ for cls in screen_classes()
               if cls.__module__.startswith("labdeck.tui.screens.") and isinstance(cls, type)
               and not issubclass(cls, PanePolicy) and not issubclass(cls, ModalScreen)
               and not (issubclass(cls, FormKeys) and cls.IS_DIALOG)
               and any(getattr(binding, "action", None) for binding in cls.__dict__.get("BINDINGS", ()))]
    assert outside == []


async def _open_everything(app: Any, pilot: Any) -> list[PanePolicy]:
    """Every area, every tab of `:groups` and of the project view, and the panes each shows."""
    from labdeck.tui.screens.groups.tab_list import GROUP_TABS
    from labdeck.tui.screens.projects.view import TABS, ProjectViewScreen

    found: list[PanePolicy] = []
    for name, scope in AREAS:
        opened = app.open_area(name, AreaRequest(scope=scope) if scope else None)
        if opened is not None:
            await opened
        await settle(pilot, rounds=2)
        if name == "access":  # its tabs' panes: the members' and the tokens' actions change things
            for tab in ("variables", "tokens", "members"):
                app.screen.show_tab(tab)
                await settle(pilot)
        if name == "groups":  # a pane tab's pane is made when the tab is first shown
            for tab in GROUP_TABS:
                app.screen.query_one("#groups-tabs", TabbedContent).active = f"tab-{tab.key}"
                await settle(pilot)
        found.extend(panes_of(app))
    project = await app.session.services.projects.project(GATEWAY)
    view = ProjectViewScreen(project)
    await app.push_screen(view)
    for tab in TABS:
        view.show_tab(tab)
        await settle(pilot)
    found.extend(panes_of(app))
    return found


async def test_read_only_hides_every_mutating_action_of_every_pane() -> None:
    app = make_app(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=2)
        panes = await _open_everything(app, pilot)
        kinds = {type(pane).__name__ for pane in panes}
        assert {"GroupsScreen", "IssuesScreen", "MembersPane", "VariablesPane", "TagsTab", "PagesTab",
                "WikiTab", "ForksTab", "ErrorTrackingTab", "RegistryPolicyTab", "ProjectIssuesTab",
                "ContainerRegistryTab", "ProjectDeploymentsTab", "AccessMembersPane",
                "AccessTokensPane"} <= kinds
        assert OWNED <= owned(panes)  # members and variables: one pane each, whatever the owner
        allowed = [(type(pane).__name__, action) for pane in panes for action in pane.MUTATING_ACTIONS
                   if pane.check_action(action, ()) is not False]
        assert allowed == []


async def test_community_edition_hides_every_premium_action_of_every_pane() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=2)
        app.session.capabilities = Capabilities(edition="ce", version=(17, 6, 0))
        panes = await _open_everything(app, pilot)
        premium = [(type(pane).__name__, action) for pane in panes
                   for action, feature in pane.FEATURE_ACTIONS.items()
                   if feature.premium and pane.check_action(action, ()) is not False]
        assert premium == []
        assert any(pane.FEATURE_ACTIONS for pane in panes)  # the walk met premium actions at all
        assert "ProjectDeploymentsTab" in {type(pane).__name__ for pane in panes if pane.FEATURE_ACTIONS}
        assert OWNED <= owned(panes)
        group_members = [pane for pane in panes
                         if isinstance(pane, MembersPane) and pane.owner.kind == "groups"]
        assert group_members and all(pane.check_action(action, ()) is False for pane in group_members
                                     for action in ("toggle_billable", "toggle_override"))


def test_the_kit_keeps_each_panes_textual_css() -> None:
    """Textual takes a class's CSS (DEFAULT_CSS, type names for `Screen {...}` rules and queries) along
    its first DOMNode base: the mixin must not stand there (it once hid Screen's and Widget's CSS)."""
    from textual.screen import Screen
    from textual.widget import Widget

    panes = [cls for cls in screen_classes() if isinstance(cls, type) and issubclass(cls, PanePolicy)
             and issubclass(cls, Widget)]
    assert panes
    for cls in panes:
        assert "Widget" in cls._css_type_names, cls
        if issubclass(cls, Screen):
            assert "Screen" in cls._css_type_names, cls


async def test_a_hidden_change_key_says_read_only_once() -> None:
    """Issue 24: in read-only mode a key of a hidden change did nothing, silently."""
    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app(read_only=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, rounds=2)
        opened = app.open_area("users")
        assert opened is not None
        await opened
        await settle(pilot, rounds=2)
        assert isinstance(app.screen, UsersScreen)
        app.screen.table.focus()
        await pilot.press("m", "m")
        await pilot.pause()
        said = [n.message for n in app._notifications if "read-only" in str(n.message)]
        assert len(said) == 1 and "not available" in said[0]
        assert app.screen is not None and not app.screen.is_modal  # nothing opened


def test_every_tab_of_the_project_view_is_a_kit_pane_over_the_project() -> None:
    """One kind of pane in the project view (issue 35): each tab's pane is an `OwnerPane` whose owner is the
    project, and the tabs that are one list are `ListPane`s (the kit's loading, `r`, gating and policy)."""
    from labdeck.api.models.projects import Project
    from labdeck.tui.kit.owner import project_owner
    from labdeck.tui.kit.panes import ListPane
    from labdeck.tui.screens.projects.view import TAB_LIST, ProjectViewScreen

    project = Project(id=7, path_with_namespace="acme/app", default_branch="main")
    view = ProjectViewScreen(project)
    panes = {tab.name: tab.make(view) for tab in TAB_LIST}
    assert all(isinstance(pane, OwnerPane) and pane.owner == project_owner(project)
               for pane in panes.values())
    lists = {name for name, pane in panes.items() if isinstance(pane, ListPane)}
    assert {"wiki", "tags", "forks", "pages", "containers", "branches"} <= lists
