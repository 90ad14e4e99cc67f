"""`:groups`: the group tree (subgroups load when a node is expanded) beside the selected group's detail in
tabs: Projects, Subgroups, Members, Labels, Badges, Variables, Iterations, and Export and import.

Each tab is a pane of the kit (declared once in `tab_list.GROUP_TABS`), made when the tab is first shown for
a group, then shown each group chosen in the tree (`pane_tabs.PaneTabs`); it loads, gates its features,
refuses in read-only mode and offers its own keys (Members and Variables are the kit's panes of every owner;
the others only a group has, `groups/panes/`). Lists come through the client's
cache, so revisiting costs no request until `r`, which reads the pane in front again. The screen's own
keys: the tabs (`[`, `]`), the tree (`t`) and the group's export (`E`, `actions.py`). Server text is shown
as `rich.text.Text`, never markup.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Static, TabbedContent, TabPane, Tree

from labdeck.api.errors import LabdeckError
from labdeck.api.models.groups import Group
from labdeck.tui.areas import AreaRequest
from labdeck.tui.clock import Today, today_of
from labdeck.tui.downloads import default_download_dir
from labdeck.tui.kit.actions import Action
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.form_keys import is_typing
from labdeck.tui.screens.groups import tab_list
from labdeck.tui.screens.groups.actions import GroupActions
from labdeck.tui.screens.groups.pane_tabs import PaneTabs
from labdeck.tui.screens.groups.tree import PAGE, GroupTree, failure_label
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.tabbed_panes import PaneTabbedContent

CHOOSE = "Choose a group on the left"


class GroupsScreen(GroupActions, PaneTabs, LabdeckScreen):
    AREA = "groups"
    TITLE = "Groups"
    CSS_PATH = "groups.tcss"
    ACTIONS = (
        Action("E", "export_to", "Export", id="groups.export", mutating=True),  # POSTs: refused read-only
        Action("t", "toggle_tree", "Tree", id="groups.toggle_tree"),
        Action("right_square_bracket", "next_tab", "Next tab", id="groups.next_tab"),
        Action("left_square_bracket", "previous_tab", "Previous tab", id="groups.previous_tab"),
    )

    def __init__(self, request: AreaRequest | None = None, *, today: Today | None = None,
                 download_dir: Path | None = None) -> None:
        super().__init__()
        self.start_path = ((request.scope or request.query or "") if request else "").strip()
        self.today: Today = today_of(self, today)
        self.download_dir = download_dir or default_download_dir()  # the last folder, else the user's
        self.download_dir_given = download_dir is not None  # else the app's remembered folder, if any
        self.group: Group | None = None
        self.roots_failed = False

    # -- layout ---------------------------------------------------------------------------------------
    def compose_body(self) -> ComposeResult:
        with Horizontal(id="groups-body"):
            yield GroupTree()
            with Vertical(id="groups-detail"):
                yield Static(Text(CHOOSE, style="dim"), id="groups-title")
                with PaneTabbedContent(id="groups-tabs"):
                    for tab in tab_list.GROUP_TABS:  # each pane is made when first shown for a group
                        yield TabPane(tab.title, id=f"tab-{tab.key}")

    @property
    def tree(self) -> GroupTree:  # type: ignore[override]  # shadows DOMNode.tree (a debug view of the DOM)
        return self.query_one(GroupTree)

    @property
    def active_tab(self) -> str:
        return (self.query_one("#groups-tabs", TabbedContent).active or "tab-projects").removeprefix("tab-")

    def view(self, tab: str | None = None) -> ResourceView:
        """The list of a tab's pane (once the pane is made)."""
        return self.query_one(f"#tab-{tab or self.active_tab}", TabPane).query(ResourceView).first()

    def table(self, tab: str | None = None) -> ResourceTable:
        return self.view(tab).table

    def tree_has_focus(self, what: str) -> bool:
        """Row actions act on what has focus: with the tree focused they do nothing and say why (the
        table's cursor row is not what the operator is looking at)."""
        if not isinstance(self.focused, GroupTree):
            return False
        self.notify(f"{what.capitalize()} acts on a row of the {self.active_tab} tab: press tab to move "
                    "to the table first (the group tree has focus)", severity="warning", markup=False)
        return True

    def shown_table(self) -> ResourceTable | None:
        """The table of the tab in front (None: its pane is not made yet)."""
        views = self.query_one(f"#tab-{self.active_tab}", TabPane).query(ResourceView)
        return views.first().table if views else None

    def selected_item(self) -> Any:
        focused = self.focused
        if isinstance(focused, GroupTree):
            node = focused.cursor_node
            return node.data if node is not None else None
        table = self.shown_table()
        return table.cursor_row if table is not None else None

    def on_mount(self) -> None:
        self.tree.focus()
        self.load_roots()

    def on_resize(self) -> None:
        """Under 100 columns the tree takes less room, so that the tab's table keeps its columns."""
        self.set_class(self.size.width < 100, "-narrow")

    def action_toggle_tree(self) -> None:
        """`t` hides the group tree (the table gets the whole width) or shows it again."""
        self.toggle_class("-tree-hidden")
        table = self.shown_table()
        if self.has_class("-tree-hidden") and table is not None:
            table.focus()
        elif not self.has_class("-tree-hidden"):
            self.tree.focus()

    # -- the tree -------------------------------------------------------------------------------------
    @work(exclusive=True, group="groups-roots")
    async def load_roots(self, refresh: bool = False) -> None:
        services = self.ctx.services
        tree = self.tree
        tree.forget_all()
        try:
            roots = await tree.add_page(tree.root, services.groups.top_level_window(all_available=True,
                                                                                   per_page=PAGE))
        except LabdeckError as error:
            self.roots_failed = True
            tree.forget_all()
            tree.root.add_leaf(failure_label(self.ctx.describe(error)), data=None)
            if self.group is None:  # no tab has a list yet: the detail says it where the list would be
                self.query_one("#groups-title", Static).update(failure_label(self.ctx.describe(error)))
            raise
        if self.roots_failed and self.group is None:
            self.query_one("#groups-title", Static).update(Text(CHOOSE, style="dim"))
        self.roots_failed = False
        self.mark_data_loaded()
        if self.start_path:
            await self.open_path(self.start_path)
        elif roots and self.group is None:
            tree.move_cursor(tree.root.children[0])

    async def open_path(self, full_path: str) -> None:
        """Expand the tree down to `full_path` and select it (loading subgroups on the way)."""
        node = self.tree.root
        parts = full_path.strip("/").split("/")
        for depth in range(1, len(parts) + 1):
            child = await self.tree.find_child(node, "/".join(parts[:depth]))
            if child is None:
                self.notify(f"No group {full_path}", severity="warning", markup=False)
                return
            if depth < len(parts):
                await self.load_children(child)
                child.expand()
            node = child
        self.tree.move_cursor(node)
        self.tree.select_node(node)
        if node.data is not None:  # (always: a node is followed only when it has a group)
            self.select_group(node.data)

    async def load_children(self, node: Any) -> None:
        group: Group | None = node.data
        if group is None or group.id in self.tree.loaded:
            return
        services = self.ctx.services
        self.tree.loaded.add(group.id)
        node.remove_children()
        try:
            window = services.groups.subgroups_window(group.id, per_page=PAGE)
            children = await self.tree.add_page(node, window)
        except LabdeckError as error:  # not loaded: `r` (or expanding it again) retries
            self.tree.loaded.discard(group.id)
            node.remove_children()
            node.add_leaf(failure_label(self.ctx.describe(error)), data=None)
            raise
        if not children:  # a leaf: no arrow (an expansion that found nothing is undone)
            node.allow_expand = False
            node.collapse()

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[Group | None]) -> None:
        event.stop()
        self.expand_node(event.node)

    @work(group="groups-tree")
    async def expand_node(self, node: Any) -> None:
        await self.load_children(node)

    def on_tree_node_selected(self, event: Tree.NodeSelected[Group | None]) -> None:
        if event.node.id in self.tree.more:  # enter on "… more groups": the next page of that level
            event.stop()
            self.read_more(event.node)

    @work(group="groups-tree")
    async def read_more(self, line: Any) -> None:
        await self.tree.read_more(line)

    def on_tree_node_highlighted(self, event: Tree.NodeHighlighted[Group | None]) -> None:
        event.stop()
        # a highlight that is no longer where the cursor is (the tree grew while a level was read) is stale:
        # following it would load another group's tab, then this one's again
        if event.node.data is not None and event.node is self.tree.cursor_node:
            self.select_group(event.node.data)

    def select_group(self, group: Group) -> None:
        if self.group is not None and self.group.id == group.id:
            return
        self.group = group
        title = Text(group.full_path or group.name or "", style="bold")
        if group.description:
            title.append(f"  {group.description}", style="dim")
        self.query_one("#groups-title", Static).update(title)
        self.load_pane(self.active_tab)

    # -- tabs -----------------------------------------------------------------------------------------
    def footer_order(self) -> tuple[str, ...] | None:
        """The tree's keys while it has focus, else the focused pane's (its `FOOTER_ORDER`)."""
        if isinstance(self.focused, GroupTree):
            return tab_list.TREE_FOOTER
        if is_typing(self.focused):
            return super().footer_order()
        try:
            pane = self.pane()
        except Exception:  # not composed yet
            return tab_list.EVERY_TAB_FOOTER
        if pane is not None and self.focused is not None and pane in self.focused.ancestors_with_self:
            return super().footer_order()  # the pane's own (`FOOTER_ORDER`)
        return tab_list.EVERY_TAB_FOOTER

    async def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        event.stop()
        self.refresh_bindings()
        tab = (event.pane.id or "").removeprefix("tab-")
        mounting = self.load_pane(tab)  # (made, or shown this group)
        if not isinstance(self.focused, GroupTree):  # a list had the focus: the new tab's list takes it
            if mounting is not None:
                await mounting  # a pane made now has its list once mounted (5 refreshes: not always)
            self.call_after_refresh(self._focus_list, tab)

    def _focus_list(self, tab: str, tries: int = 5) -> None:
        """Focus the list of `tab` (still in front), once its pane has drawn it."""
        if self.active_tab != tab or isinstance(self.focused, GroupTree):
            return
        views = self.query_one(f"#tab-{tab}", TabPane).query(ResourceView)
        if views:
            views.first().table.focus()
        elif tries:
            self.call_after_refresh(self._focus_list, tab, tries - 1)

    def action_next_tab(self, step: int = 1) -> None:
        keys = [key for key, _ in tab_list.TABS]
        index = (keys.index(self.active_tab) + step) % len(keys)
        self.query_one("#groups-tabs", TabbedContent).active = f"tab-{keys[index]}"

    def action_previous_tab(self) -> None:
        self.action_next_tab(-1)

    def refresh_data(self) -> None:
        """`r`: the group list when it failed (or is empty); a subgroup node whose children failed to load
        (the cursor on it or on its failure line); else the active tab."""
        if self.roots_failed or not self.tree.root.children:
            self.load_roots(refresh=True)
            return
        node = self.tree.cursor_node
        if node is not None and node.data is None and node.parent is not None:
            node = node.parent  # the failure line: retry its group
        if node is not None and node.data is not None and node.data.id not in self.tree.loaded \
                and node.children and node.children[0].data is None:
            self.expand_node(node)
            return
        self.load_pane(self.active_tab, refresh=True)

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        row = event.row
        if isinstance(row, Group):
            event.stop()
            node = next((n for n in self._all_nodes() if n.data is not None and n.data.id == row.id), None)
            if node is not None:
                self.tree.move_cursor(node)
            self.select_group(row)
        elif event.table is not None:  # a row no pane opened (labels, badges, iterations): its detail
            event.stop()
            view = next((a for a in event.table.ancestors if isinstance(a, ResourceView)), None)
            if view is not None:
                view.open_detail()

    def _all_nodes(self) -> list[Any]:
        out, stack = [], list(self.tree.root.children)
        while stack:
            node = stack.pop()
            out.append(node)
            stack.extend(node.children)
        return out


def open_groups(request: AreaRequest) -> GroupsScreen:
    """The area factory (`:groups`)."""
    return GroupsScreen(request)
