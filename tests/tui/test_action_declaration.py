"""One action declaration (issue 33): each key of a pane or screen is declared once (`kit/actions.Action`),
and its binding, the read-only/feature/row policy, the pane's footer and the palette are derived from it.

The walk runs on the classes (every pane and screen class of `labdeck.tui`, every area's screen among them),
not on screens opened in Pilot: it checks that bindings, footer, policy and palette agree with the
declarations. Then the mechanism itself: a mixin's actions merged, a subclass's override, a duplicate key and
a hand-written table refused when the class is created, and no class of `src` writing a table by hand.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from pydantic import BaseModel
from textual.dom import DOMNode
from textual.widget import Widget

import labdeck.tui
from labdeck.api.models.tolerant import IDENTITY_UNREADABLE, NOT_AN_OBJECT
from labdeck.domain.features import PROMOTE_TO_EPIC, Feature
from labdeck.tui.app import LabdeckApp
from labdeck.tui.area_commands import SHELL_ACTIONS, area_actions, area_screen_class
from labdeck.tui.areas import AREAS
from labdeck.tui.keymap import bindings_of, declared_bindings
from labdeck.tui.kit.actions import DERIVED, Action, ActionDeclarationError, Shown
from labdeck.tui.kit.pane_policy import PanePolicy
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.issues.actions import IssueActions
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.projects.issues import ProjectIssuesTab

SRC = Path(__file__).resolve().parents[2] / "src" / "labdeck"


def _modules() -> list[Any]:
    return [importlib.import_module(info.name)
            for info in pkgutil.walk_packages(labdeck.tui.__path__, prefix="labdeck.tui.")]


def _node_classes() -> set[type[DOMNode]]:
    found: set[type[DOMNode]] = set()
    for module in _modules():
        for _, cls in inspect.getmembers(module, inspect.isclass):
            if issubclass(cls, DOMNode):
                found.add(cls)
    return found


NODES = _node_classes()
# every pane and screen of labdeck (the pane policy is the base of both)
DECLARING = sorted(
    (cls for cls in NODES if issubclass(cls, PanePolicy) and cls.__module__.startswith("labdeck")),
    key=lambda cls: f"{cls.__module__}.{cls.__qualname__}")
AREA_SCREENS = {name: area_screen_class(area) for name, area in AREAS.items()}
# actions bound by what a pane or screen sits among: the app, and the widgets that are neither (lists, tabs)
WIDGET_ACTIONS = frozenset({binding.action for cls in (NODES | {LabdeckApp})
                            if not issubclass(cls, PanePolicy) for binding in bindings_of(cls)})
SCREEN_ACTIONS = frozenset({action.action for cls in DECLARING if issubclass(cls, LabdeckScreen)
                            for action in cls.DECLARED_ACTIONS})
PANE_ACTIONS = frozenset({action.action for cls in DECLARING if not issubclass(cls, LabdeckScreen)
                          for action in cls.DECLARED_ACTIONS})


def _name(cls: type[Any]) -> str:
    return cls.__qualname__


def test_the_walk_meets_every_area_screen_and_pane() -> None:
    walked = set(DECLARING)
    screens = {name: cls for name, cls in AREA_SCREENS.items() if cls is not None}
    assert {"issues", "projects", "groups", "users", "registry", "deployments", "journal"} <= set(screens)
    assert set(screens.values()) <= walked, {n: c for n, c in screens.items() if c not in walked}
    assert {"IssuesScreen", "ProjectIssuesTab", "MembersPane", "VariablesPane", "LabelsPane", "WikiTab",
            "RegistryTagsScreen", "CleanupPolicyScreen"} <= {cls.__name__ for cls in walked}


# -- the walk: every pane and screen class ------------------------------------------------------------------
@pytest.mark.parametrize("cls", DECLARING, ids=_name)
def test_every_action_has_exactly_one_binding_with_its_key_and_id(cls: type[Any]) -> None:
    merged = cls._merged_bindings.key_to_bindings
    for action in cls.DECLARED_ACTIONS:
        assert action.id, f"{_name(cls)}: {action.action} has no keymap id"
        for key in action.keys:
            found = [b for bindings in merged.values() for b in bindings
                     if b.id == action.id and b.key == key]
            assert len(found) == 1, f"{_name(cls)}: {key} -> {action.action} ({action.id}): {found}"
            binding = found[0]
            assert (binding.action, binding.description, binding.show, binding.priority) == (
                action.action, action.description, action.show, action.priority), binding
            assert binding in merged[key]


@pytest.mark.parametrize("cls", DECLARING, ids=_name)
def test_every_binding_of_a_pane_or_screen_is_a_declared_action(cls: type[Any]) -> None:
    """The keys in effect (Textual's merge: a subclass's key replaces its base's) that a pane or screen
    class binds are all declared actions: none is bound by hand, none is left over from a base."""
    declared = {(action.action, action.id) for action in cls.DECLARED_ACTIONS}
    from_panes = {binding.id for owner, binding in declared_bindings(cls) if issubclass(owner, PanePolicy)}
    by_hand = [f"{key} -> {binding.action} ({binding.id})"
               for key, bindings in cls._merged_bindings.key_to_bindings.items() for binding in bindings
               if binding.id in from_panes and (binding.action, binding.id) not in declared]
    assert by_hand == []


@pytest.mark.parametrize("cls", DECLARING, ids=_name)
def test_every_footer_key_is_a_declared_action(cls: type[Any]) -> None:
    """A pane's footer (derived from its ACTIONS) and each pane of a screen's footer (`FOOTER_PANES`) name
    actions that exist: declared by the class, or bound by what it sits among (a pane: its screen, the list,
    the app; a screen: its panes, its widgets, the app). A name bound nowhere is a dead footer entry."""
    own = {action.action for action in cls.DECLARED_ACTIONS}
    around = WIDGET_ACTIONS | (PANE_ACTIONS if issubclass(cls, LabdeckScreen) else SCREEN_ACTIONS)
    orders = {"FOOTER_ORDER": getattr(cls, "FOOTER_ORDER", None) or ()}
    panes = getattr(cls, "FOOTER_PANES", {})
    orders.update({f"FOOTER_PANES[{pane!r}]": names for pane, names in panes.items()})
    dead = [(where, name) for where, names in orders.items() for name in names
            if name not in own and name not in around]
    assert dead == []


class _Unreadable(BaseModel):
    """A list element that was not an object (`api/models/tolerant`): shown, never acted on."""

    unreadable: tuple[str, ...] = (NOT_AN_OBJECT,)


@dataclass
class _Policy:
    refused: set[Feature] = field(default_factory=set)

    def feature_reason(self, feature: Feature) -> str | None:
        return "needs GitLab Premium" if feature in self.refused else None


def _stub(cls: type[Any], *, read_only: bool, refused: set[Feature] | None = None,
          rows: list[Any] | None = None) -> Any:
    """What the policy reads of a pane: its declared tables and a context (no app, no screen)."""
    ctx = SimpleNamespace(read_only=read_only, policy=_Policy(refused or set()))
    return SimpleNamespace(ctx=ctx, MUTATING_ACTIONS=cls.MUTATING_ACTIONS,
                           FEATURE_ACTIONS=cls.FEATURE_ACTIONS, ROW_ACTIONS=cls.ROW_ACTIONS,
                           rows_acted_on=lambda: list(rows or []))


@pytest.mark.parametrize("cls", DECLARING, ids=_name)
def test_the_policy_follows_the_declaration(cls: type[Any]) -> None:
    """Read-only mode refuses exactly the mutating actions; an instance without a feature refuses exactly
    the actions that need it; a row action refuses an item whose id could not be read."""
    unreadable = _Unreadable()
    read_only = _stub(cls, read_only=True)
    features = {action.feature for action in cls.DECLARED_ACTIONS if action.feature is not None}
    lacking = _stub(cls, read_only=False, refused=features)
    rows = _stub(cls, read_only=False, rows=[unreadable])
    for action in cls.DECLARED_ACTIONS:
        assert PanePolicy.policy_allows(read_only, action.action) is (not action.mutating), action
        assert PanePolicy.policy_allows(lacking, action.action) is (action.feature is None), action
        refusal = PanePolicy.identity_refusal(rows, action.action)
        assert (refusal == IDENTITY_UNREADABLE) is action.row, action


@pytest.mark.parametrize("area", sorted(name for name, cls in AREA_SCREENS.items() if cls is not None))
def test_the_palette_lists_the_area_screens_actions(area: str) -> None:
    cls = AREA_SCREENS[area]
    assert cls is not None
    listed = {(title, action) for title, action, _key in area_actions(cls)}
    shared = set(LabdeckScreen.DECLARED_ACTIONS)
    wanted = {(action.description, action.action) for action in getattr(cls, "DECLARED_ACTIONS", ())
              if action.description and action.palette is not False and action not in shared
              and action.action not in SHELL_ACTIONS}
    wanted |= {(action.palette, action.action) for action in getattr(cls, "DECLARED_ACTIONS", ())
               if isinstance(action.palette, str)}
    assert listed == wanted


def test_the_users_palette_entry_comes_from_its_declaration() -> None:
    from labdeck.tui.screens.users.users import UsersScreen

    assert ("Approve, block, ban, deactivate a user (moderate)", "moderate", "") in area_actions(UsersScreen)


# -- the issue actions, declared once ------------------------------------------------------------------------
def test_the_issue_actions_are_declared_once_and_keep_each_hosts_keymap_ids() -> None:
    shared = {entry.action for entry in IssueActions.ACTIONS}
    assert {"bulk", "edit", "comment", "time_tracking", "promote", "links"} <= shared
    for host in (IssuesScreen, ProjectIssuesTab):
        assert not any(isinstance(entry, Action) and entry.action in shared
                       for entry in host.__dict__.get("ACTIONS", ()))  # the host does not restate them
    ids = {binding.action: binding.id for binding in bindings_of(IssuesScreen)}
    assert ids["edit"] == "issues.edit" and ids["time_tracking"] == "issues.time"
    ids = {binding.action: binding.id for binding in bindings_of(ProjectIssuesTab)}
    assert ids["edit"] == "project_issues.edit" and ids["promote"] == "project_issues.promote"
    for host in (IssuesScreen, ProjectIssuesTab):
        assert {"bulk", "edit", "comment", "time_tracking", "promote"} <= host.MUTATING_ACTIONS
        assert host.FEATURE_ACTIONS["promote"] is PROMOTE_TO_EPIC


# -- the mechanism -------------------------------------------------------------------------------------------
class Mixin:
    ACTIONS = (Action("m", "mix", "Mix", id=".mix", mutating=True, row=True),)


class Host(Mixin, PanePolicy, Widget):
    ACTION_IDS = "host"
    ACTIONS = (Shown("select"), Action("h", "own", "Own", id="host.own", footer=True), Shown("mix"),
               Action("z", "hidden", "Hidden", id="host.hidden", show=False))


def test_a_mixins_actions_come_with_it() -> None:
    assert [(b.key, b.action, b.id) for b in Host.BINDINGS] == [
        ("m", "mix", "host.mix"), ("h", "own", "host.own"), ("z", "hidden", "host.hidden")]
    assert Host.MUTATING_ACTIONS == {"mix"} and Host.ROW_ACTIONS == {"mix"}
    assert Host.FOOTER_ORDER == ("select", "own", "mix")

    class Again(Host):  # the mixin's keys are bound once, by the class that mixed it in
        pass

    assert "BINDINGS" not in Again.__dict__
    assert [b.id for b in Again._merged_bindings.key_to_bindings["m"]] == ["host.mix"]
    assert Again.FOOTER_ORDER == Host.FOOTER_ORDER  # names no footer: its base's


def test_a_subclass_overrides_an_action_by_name() -> None:
    class Quieter(Host):
        ACTIONS = (Action("m", "mix", "Mix (safe)", id="quieter.mix"),)

    assert Quieter.MUTATING_ACTIONS == frozenset() and Quieter.ROW_ACTIONS == frozenset()
    assert [(a.description, a.id) for a in Quieter.DECLARED_ACTIONS if a.action == "mix"] == [
        ("Mix (safe)", "quieter.mix")]
    assert [b.id for b in Quieter._merged_bindings.key_to_bindings["m"]] == ["quieter.mix"]


def test_a_key_declared_twice_is_refused_when_the_class_is_created() -> None:
    with pytest.raises(ActionDeclarationError, match="key 'a'"):
        class Twice(PanePolicy, Widget):
            ACTIONS = (Action("a", "add", "Add", id="t.add"),
                       Action("a", "archive", "Archive", id="t.archive"))

    with pytest.raises(ActionDeclarationError, match="key 'h'"):
        class Rebound(Host):  # a base's key taken by another action
            ACTIONS = (Action("h", "help_me", "Help", id="rebound.help"),)


def test_a_hand_written_table_or_binding_is_refused() -> None:
    with pytest.raises(ActionDeclarationError, match="MUTATING_ACTIONS"):
        class Table(PanePolicy, Widget):
            MUTATING_ACTIONS = frozenset({"add"})

    with pytest.raises(ActionDeclarationError, match="BINDINGS"):
        class Bound(PanePolicy, Widget):
            BINDINGS = [("a", "add", "Add")]

    with pytest.raises(ActionDeclarationError, match="ACTION_IDS"):
        class Nameless(Mixin, PanePolicy, Widget):
            pass


def test_keys_of_one_action_must_agree_on_its_policy() -> None:
    with pytest.raises(ActionDeclarationError, match="disagree"):
        class Split(PanePolicy, Widget):
            ACTIONS = (Action("ctrl+s", "apply", "Apply", id="s.chord", mutating=True),
                       Action("a", "apply", "Apply", id="s.apply"))


def test_the_palette_reads_each_actions_palette_words() -> None:
    class Area(LabdeckScreen):
        __module__ = "labdeck.tui.screens.an_area"  # an area's screen, not a test's class
        ACTIONS = (Action("k", "keep", "Keep", id="area.keep"),
                   Action("h", "hush", "Hush", id="area.hush", palette=False),
                   Action("m", "more", "More", id="area.more", palette="Do more, with other words"))

    assert area_actions(Area) == [("Keep", "keep", "k"), ("More", "more", "m"),
                                  ("Do more, with other words", "more", "")]


def test_no_class_of_src_writes_a_derived_table_by_hand() -> None:
    """The tables are derived from ACTIONS; a class body that assigns one brings back a second declaration."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            for statement in node.body:
                targets = (statement.targets if isinstance(statement, ast.Assign)
                           else [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value
                           else [])
                found += [f"{path.relative_to(SRC)}: {node.name}.{target.id}" for target in targets
                          if isinstance(target, ast.Name) and target.id in DERIVED]
    assert found == []
