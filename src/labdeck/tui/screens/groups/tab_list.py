"""The tabs of `:groups`, each declared once (`GroupTab`). A tab is either a pane (`pane`: a pane widget
made for the selected group, `panes/owned.OwnerPane`, as the project view's tabs are: it has its own keys,
footer, load and reload; the Members and Variables tabs are the members and variables panes of every owner,
`screens/panes/`) or a table of the screen (`spec`: columns; `load`; the feature its data needs; how its
rows are added, edited and deleted; the tab-specific actions that apply in it; its footer keys; a help
line). The tables the screen reads (`TABS`, `TAB_ACTIONS`, `TAB_FOOTER`, `TAB_BY_KEY`) are derived from
the declarations. The screen and its actions read only these facts, never a tab's name: a new tab is one
pane module (or its table, loader and editor) and one entry here."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from labdeck.tui.screens.groups.editors import BADGES, LABELS, TabEditor
from labdeck.tui.screens.groups.panes.iterations import IterationsPane
from labdeck.tui.screens.groups.panes.projects import ProjectsPane
from labdeck.tui.screens.groups.panes.subgroups import SubgroupsPane
from labdeck.tui.screens.groups.tabs import (
    TabSpec,
    badge_tab,
    label_tab,
    relation_tab,
)
from labdeck.tui.screens.owner import Owner
from labdeck.tui.screens.panes.members import MembersPane
from labdeck.tui.screens.panes.owned import OwnerPane
from labdeck.tui.screens.panes.variables import VariablesPane
from labdeck.tui.widgets.footer import LIST_KEYS

if TYPE_CHECKING:
    from labdeck.api.services import Services
    from labdeck.tui.screens.groups.groups import GroupsScreen
    from labdeck.tui.screens.groups.host import GroupsHost


# The tree's keys in the footer, most useful first.
TREE_FOOTER = ("select_cursor", "toggle_node", "next_tab", "previous_tab", "toggle_tree", "export_to")
_EDITING = ("add", "edit", "delete")


@dataclass(frozen=True)
class GroupTab:
    """One tab of `:groups`, declared once: its key and title, and either its pane (`pane(screen,
    owner)`, made when the tab is first shown for a group; the pane declares its keys, footer and policy)
    or its table (`spec`, from the screen's own state, and `load`), the feature its data needs (the tab
    says why where the instance lacks it), the tab-specific actions that apply in it, and its footer keys
    before those every tab has."""

    key: str
    title: str
    spec: Callable[[GroupsScreen], TabSpec] | None = None
    load: Callable[[GroupsScreen, Services, int, bool], Awaitable[list[Any]]] | None = None
    pane: Callable[[GroupsHost, Owner], OwnerPane] | None = None
    feature: str | None = None
    actions: tuple[str, ...] = ()
    footer: tuple[str, ...] = ()
    editor: TabEditor | None = None  # how its rows are added, edited and deleted (None: they are not)
    help: str = ""  # a line above the table

    def __post_init__(self) -> None:
        if (self.pane is None) == (self.spec is None or self.load is None):
            raise ValueError(f"the {self.key} tab is a pane or a table (spec and load), not both")


async def _labels(screen: GroupsScreen, services: Services, ref: int, refresh: bool) -> list[Any]:
    return list(await services.labels.list_labels(ref, with_counts=True, refresh=refresh))


async def _badges(screen: GroupsScreen, services: Services, ref: int, refresh: bool) -> list[Any]:
    return list(await services.badges.list_badges(ref, refresh=refresh))


async def _relations(screen: GroupsScreen, services: Services, ref: int, refresh: bool) -> list[Any]:
    if refresh or not screen.relations:
        screen.relations = await services.transfer.relations_status(ref)
    return list(screen.relations)


GROUP_TABS: tuple[GroupTab, ...] = (
    GroupTab("projects", "Projects",
             pane=lambda screen, owner: ProjectsPane(owner, lambda: screen.group, id="groups-pane-projects",
                                                     view_id="groups-view-projects")),
    GroupTab("subgroups", "Subgroups",
             pane=lambda screen, owner: SubgroupsPane(owner, id="groups-pane-subgroups",
                                                      view_id="groups-view-subgroups")),
    GroupTab("members", "Members",
             pane=lambda screen, owner: MembersPane(owner, today=screen.today, id="groups-pane-members")),
    GroupTab("labels", "Labels", lambda screen: label_tab(), _labels, actions=(*_EDITING, "subscribe"),
             footer=("select", "add", "edit", "delete", "subscribe"), editor=LABELS),
    GroupTab("badges", "Badges", lambda screen: badge_tab(), _badges, actions=_EDITING,
             footer=("select", "add", "edit", "delete"), editor=BADGES),
    GroupTab("variables", "Variables",
             pane=lambda screen, owner: VariablesPane(owner, id="groups-pane-variables",
                                                      view_id="groups-variables-view",
                                                      status_id="groups-variables-status")),
    GroupTab("iterations", "Iterations",
             pane=lambda screen, owner: IterationsPane(owner, id="groups-pane-iterations",
                                                       view_id="groups-view-iterations")),
    GroupTab("transfer", "Export and import", lambda screen: relation_tab(), _relations,
             feature="relations_export",
             actions=("export_relations", "import_group"),
             footer=("export_to", "export_relations", "import_group"),
             help="E: export this group (saved in a folder you pick) · X: export its relations · enter on a "
                  "relation: download it · I: import a group"),
)
# What the rest of the screen reads, derived from the declarations above.
TABS: tuple[tuple[str, str], ...] = tuple((tab.key, tab.title) for tab in GROUP_TABS)
TAB_ACTIONS: dict[str, tuple[str, ...]] = {}
for _tab in GROUP_TABS:
    for _action in _tab.actions:
        TAB_ACTIONS[_action] = (*TAB_ACTIONS.get(_action, ()), _tab.key)
TAB_FOOTER: dict[str, tuple[str, ...]] = {tab.key: tab.footer for tab in GROUP_TABS if tab.footer}
TAB_BY_KEY: dict[str, GroupTab] = {tab.key: tab for tab in GROUP_TABS}
EVERY_TAB_FOOTER = ("select", "next_tab", "previous_tab", "toggle_tree", *LIST_KEYS)
