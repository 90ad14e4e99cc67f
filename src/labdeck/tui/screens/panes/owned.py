"""`OwnerPane`: a pane of the kit (`PanePolicy`) that shows one owner's resources (`screens/owner.Owner`: a
group, a project or the instance) and can be shown another owner's: `:groups` makes its Members and
Variables panes once, then shows each group chosen in the tree in them (`show_owner`)."""

from __future__ import annotations

from labdeck.tui.pane_policy import PanePolicy
from labdeck.tui.screens.owner import Owner


class OwnerPane(PanePolicy):
    """Mixed in before the pane's Textual base (`class MembersPane(OwnerPane, Widget)`)."""

    owner: Owner

    def show_owner(self, owner: Owner) -> None:
        """Show `owner`'s resources instead (its data is read; state about the former owner is dropped)."""
        raise NotImplementedError
