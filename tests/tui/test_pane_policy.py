"""The pane kit's policy, tested once where it lives (`tui/kit/pane_policy.py`), on the classes: a pane hides
its mutating actions in read-only mode and its premium actions on Community Edition, no pane of
`tui/screens` escapes the kit, and every tab of the project view is a pane of the kit over the project.
(That every screen's declared actions agree with its bindings, footer and palette is the class-level walk
of `test_action_declaration.py`; the Pilot walks of every screen that were here are gone, issue 35.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from snapshot_apps import make_app, settle
from textual.screen import ModalScreen

from labdeck.domain.capabilities import Capabilities
from labdeck.domain.features import PROMOTE_TO_EPIC
from labdeck.tui.context import Policy
from labdeck.tui.kit.actions import Action
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.screens.form_keys import FormKeys
from labdeck.tui.screens.shell.catalogue import screen_classes

SIZE = (160, 50)


class StubPane(PanePolicy):
    """A pane of the kit without Textual: one mutating action, one premium one, one that only reads; its
    context is given (a pane's own comes from its app)."""

    ACTIONS = (Action("x", "delete", "Delete", id="stub.delete", mutating=True),
               Action("p", "promote", "Promote", id="stub.promote", feature=PROMOTE_TO_EPIC),
               Action("r", "refresh", "Refresh", id="stub.refresh"))

    def __init__(self, *, read_only: bool = False, edition: str = "ee") -> None:
        self.context = SimpleNamespace(read_only=read_only, policy=Policy(
            read_only=read_only, capabilities=Capabilities(edition=edition, version=(17, 6, 0))))

    @property
    def ctx(self) -> Any:
        return self.context


def test_every_pane_of_the_screens_is_in_the_kit() -> None:
    """A screen or tab widget with keys of its own derives `PanePolicy` (a dialog is not a pane)."""
    outside = [cls.__qualname__ for cls in screen_classes()
               if cls.__module__.startswith("labdeck.tui.screens.") and isinstance(cls, type)
               and not issubclass(cls, PanePolicy) and not issubclass(cls, ModalScreen)
               and not (issubclass(cls, FormKeys) and cls.IS_DIALOG)
               and any(getattr(binding, "action", None) for binding in cls.__dict__.get("BINDINGS", ()))]
    assert outside == []


def test_the_policy_hides_mutating_actions_when_read_only_and_premium_ones_on_community_edition() -> None:
    """The mechanism every pane applies (`PanePolicy.check_action`), on a pane's class. That each screen
    and tab declares its mutating, row and feature actions, and that its bindings, footer and palette agree
    with the declaration, is the class-level walk of every screen's actions
    (`test_action_declaration.py`); one pane in Pilot below (`test_a_hidden_change_key_says_read_only_once`)
    and `test_capabilities_screens.py::test_ce_status_bar_and_premium_tab_and_actions` show it live."""
    def allowed(pane: StubPane) -> set[str]:
        return {action for action in ("delete", "promote", "refresh")
                if pane.check_action(action, ()) is not False}

    assert allowed(StubPane()) == {"delete", "promote", "refresh"}
    assert allowed(StubPane(read_only=True)) == {"promote", "refresh"}
    assert allowed(StubPane(edition="ce")) == {"delete", "refresh"}
    assert allowed(StubPane(read_only=True, edition="ce")) == {"refresh"}


def test_each_areas_changes_are_declared_mutating() -> None:
    """What the read-only Pilot tests of the deployments, issues, users and project view once checked, one
    app each (issue 35): their changes are mutating actions, so the policy above hides them; their reads
    are not."""
    from labdeck.tui.screens.deployments.deployments import DeploymentsScreen
    from labdeck.tui.screens.deployments.protected_environments import ProtectedEnvironmentsScreen
    from labdeck.tui.screens.issues.issues import IssuesScreen
    from labdeck.tui.screens.projects.tags import TagsTab
    from labdeck.tui.screens.projects.view import ProjectViewScreen
    from labdeck.tui.screens.users.users import UsersScreen

    assert {"set_status", "new_deployment"} <= DeploymentsScreen.MUTATING_ACTIONS
    assert {"add_rule", "remove_rule"} <= ProtectedEnvironmentsScreen.MUTATING_ACTIONS
    assert {"bulk", "edit", "comment", "time_tracking", "promote"} <= IssuesScreen.MUTATING_ACTIONS
    assert "focus_query" not in IssuesScreen.MUTATING_ACTIONS
    assert "moderate" in UsersScreen.MUTATING_ACTIONS
    assert {"new_tag", "delete_tag"} <= TagsTab.MUTATING_ACTIONS
    assert "fork" in ProjectViewScreen.MUTATING_ACTIONS
    from labdeck.tui.screens.access.members import AccessMembersPane
    from labdeck.tui.screens.access.tokens import AccessTokensPane

    assert {"edit_grant", "remove_grant"} <= AccessMembersPane.MUTATING_ACTIONS
    assert {"revoke_token", "rotate_token"} <= AccessTokensPane.MUTATING_ACTIONS


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
