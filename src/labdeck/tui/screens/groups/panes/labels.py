"""The Labels tab of `:groups`: the group's labels with their issue and merge request counts; `a`, `e`, `x`
add, edit and delete one (`EditedPane`, the labels editor), `b` subscribes to the label under the cursor
or unsubscribes from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import work
from textual.binding import Binding

from labdeck.api.models.labels import GroupLabel
from labdeck.tui.kit.edited import EditedPane
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import EVERY_LIST_FOOTER
from labdeck.tui.screens.groups.editors import LABELS
from labdeck.tui.screens.groups.tabs import label_tab

if TYPE_CHECKING:
    from labdeck.api.services import Services


class LabelsPane(EditedPane):
    EDITOR = LABELS
    FOOTER_ORDER = ("select", "add", "edit", "delete", "subscribe", *EVERY_LIST_FOOTER)
    BINDINGS = [Binding("b", "subscribe", "Subscribe", id="groups.subscribe")]
    MUTATING_ACTIONS = frozenset({*EditedPane.MUTATING_ACTIONS, "subscribe"})
    ROW_ACTIONS = frozenset({*EditedPane.ROW_ACTIONS, "subscribe"})

    def __init__(self, owner: Owner, *, id: str | None = None, view_id: str | None = None) -> None:
        super().__init__(owner, label_tab(), id=id, view_id=view_id)

    async def read(self, services: Services, refresh: bool) -> list[Any]:
        return list(await services.labels.list_labels(self.ref, with_counts=True, refresh=refresh))

    @work(group="groups-change")
    async def action_subscribe(self) -> None:
        row = self.table.cursor_row
        if not isinstance(row, GroupLabel):
            return
        result = await self.ctx.services.labels.set_subscription(self.ref, row.id, not row.subscribed)
        if result is None:
            self.notify("Nothing changed", markup=False)
        else:
            self.notify(f"{'Subscribed to' if result.subscribed else 'Unsubscribed from'} {result.name}",
                        markup=False)
        self.load()
