"""The tabbed content of `:groups`, beside its group tree: Textual's `TabbedContent` whose tab bar is not a
focus stop. Tabs switch with `[` and `]` (and the mouse), so `tab`
goes straight from the group tree to the list of the tab in front, as the hint "press tab to move to the
table" says, and the footer always shows the keys of a list, never an empty tab bar's."""

from __future__ import annotations

from textual.widgets import TabbedContent, Tabs


class PaneTabbedContent(TabbedContent):
    def on_mount(self) -> None:
        for bar in self.query(Tabs):
            bar.can_focus = False
