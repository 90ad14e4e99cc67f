"""The tabs of `:groups`, each a pane (`tab_list.GROUP_TABS`): the pane is made the first time its tab is
shown for a group, then shown each group chosen in the tree (`OwnerPane.show_owner`); `r` is its `reload`.
With the group tree focused, a key of the pane in front works as the screen's own keys do there: one for
the whole list (`a` add, `i` inherited, `X` relations export) runs in the pane, one for a row (`e`, `x`,
`m`, `b`) says to move to the list first. `PaneTabs` is a mixin of `GroupsScreen`."""

from __future__ import annotations

from textual import events
from textual.widget import AwaitMount
from textual.widgets import TabPane

from labdeck.tui.kit.owner import group_owner
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.screens.groups.host import GroupsHost
from labdeck.tui.screens.groups.tab_list import TAB_BY_KEY
from labdeck.tui.screens.groups.tree import GroupTree
from labdeck.tui.textual_internals import bindings_for_key


class PaneTabs(GroupsHost):
    """The pane tabs of `GroupsScreen`; see the module docstring."""

    def pane(self, tab: str | None = None) -> OwnerPane | None:
        """The pane a tab holds (None: not made yet)."""
        holder = self.query_one(f"#tab-{tab or self.active_tab}", TabPane)
        return next((node for node in holder.children if isinstance(node, OwnerPane)), None)

    def load_pane(self, tab: str, refresh: bool = False) -> AwaitMount | None:
        """Show `tab`'s pane for the selected group: made the first time (the mount returned, to await
        before its list can take the focus), else shown this group (a group it already shows: nothing, or
        with `refresh` its `reload`)."""
        if self.group is None:
            return None
        owner, pane = group_owner(self.group), self.pane(tab)
        if pane is None:
            return self.query_one(f"#tab-{tab}", TabPane).mount(TAB_BY_KEY[tab].pane(self, owner))
        if pane.owner != owner:
            pane.show_owner(owner)
        elif refresh:
            pane.reload()
        return None

    def on_key(self, event: events.Key) -> None:
        """A key of the pane in front, with the tree focused (see the module docstring)."""
        pane = self.pane() if isinstance(self.focused, GroupTree) else None
        if pane is None:
            return
        for binding in bindings_for_key(pane, event.key):
            if pane.check_action(binding.action, ()) is False:
                continue
            event.stop()
            event.prevent_default()
            if binding.action in pane.ROW_ACTIONS:
                self.tree_has_focus(binding.description or binding.action)
            else:
                self.call_later(self.app.run_action, binding.action, pane)
            return

