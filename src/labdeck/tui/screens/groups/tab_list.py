"""The tabs of `:groups`, each declared once (`GroupTab`): its key, its title and its pane (`pane(screen,
owner)`: a pane of the kit made for the selected group, `kit/panes.OwnerPane`, as the project view's tabs
are: it declares its own columns, keys, footer and policy, loads as the kit loads, and follows the group
chosen in the tree). The Members and Variables tabs are the kit's panes of every owner; the others are
panes only a group has (`groups/panes/`). The screen and its actions read only these declarations, never a
tab's name: a new tab is one pane and one entry here."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from labdeck.tui.kit.members_pane import MembersPane
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import EVERY_LIST_FOOTER, OwnerPane
from labdeck.tui.kit.variables_pane import VariablesPane
from labdeck.tui.screens.groups.panes.badges import BadgesPane
from labdeck.tui.screens.groups.panes.iterations import IterationsPane
from labdeck.tui.screens.groups.panes.labels import LabelsPane
from labdeck.tui.screens.groups.panes.projects import ProjectsPane
from labdeck.tui.screens.groups.panes.subgroups import SubgroupsPane
from labdeck.tui.screens.groups.panes.transfer import TransferPane

if TYPE_CHECKING:
    from labdeck.tui.screens.groups.host import GroupsHost


# The tree's keys in the footer, most useful first.
TREE_FOOTER = ("select_cursor", "toggle_node", "next_tab", "previous_tab", "toggle_tree", "export_to")
EVERY_TAB_FOOTER = EVERY_LIST_FOOTER  # where neither the tree nor a pane has focus (while a tab opens)


@dataclass(frozen=True)
class GroupTab:
    """One tab of `:groups`: its key and title, and its pane, made when the tab is first shown for a
    group (`pane_tabs.PaneTabs`), then shown each group chosen in the tree (`OwnerPane.show_owner`)."""

    key: str
    title: str
    pane: Callable[[GroupsHost, Owner], OwnerPane]


def _ids(key: str) -> dict[str, str]:
    return {"id": f"groups-pane-{key}", "view_id": f"groups-view-{key}"}


GROUP_TABS: tuple[GroupTab, ...] = (
    GroupTab("projects", "Projects",
             lambda screen, owner: ProjectsPane(owner, lambda: screen.group, **_ids("projects"))),
    GroupTab("subgroups", "Subgroups", lambda screen, owner: SubgroupsPane(owner, **_ids("subgroups"))),
    GroupTab("members", "Members",
             lambda screen, owner: MembersPane(owner, today=screen.today, id="groups-pane-members")),
    GroupTab("labels", "Labels", lambda screen, owner: LabelsPane(owner, **_ids("labels"))),
    GroupTab("badges", "Badges", lambda screen, owner: BadgesPane(owner, **_ids("badges"))),
    GroupTab("variables", "Variables",
             lambda screen, owner: VariablesPane(owner, id="groups-pane-variables",
                                                 view_id="groups-variables-view",
                                                 status_id="groups-variables-status")),
    GroupTab("iterations", "Iterations", lambda screen, owner: IterationsPane(owner, **_ids("iterations"))),
    GroupTab("transfer", "Export and import",
             lambda screen, owner: TransferPane(owner, screen, **_ids("transfer"))),
)
# What the rest of the screen reads, derived from the declarations above.
TABS: tuple[tuple[str, str], ...] = tuple((tab.key, tab.title) for tab in GROUP_TABS)
TAB_BY_KEY: dict[str, GroupTab] = {tab.key: tab for tab in GROUP_TABS}
