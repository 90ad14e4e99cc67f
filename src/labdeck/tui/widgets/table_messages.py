"""The messages `ResourceTable` posts (reached as `ResourceTable.RowSelected` and so on; handlers are named
`on_resource_table_row_selected`, ...). Each has `control`, the table that posted it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from labdeck.tui.widgets.resource_table import ResourceTable


class _TableMessage(Message, namespace="resource_table"):
    def __init__(self, table: ResourceTable | None = None) -> None:
        super().__init__()
        self.table = table

    @property
    def control(self) -> ResourceTable | None:
        return self.table


class RowHighlighted(_TableMessage, namespace="resource_table"):
    """The cursor moved to `row`."""

    def __init__(self, row: Any, table: ResourceTable | None = None) -> None:
        super().__init__(table)
        self.row = row


class RowSelected(_TableMessage, namespace="resource_table"):
    """`enter` (or a click on the cursor row) chose `row`."""

    def __init__(self, row: Any, table: ResourceTable | None = None) -> None:
        super().__init__(table)
        self.row = row


class LoadMore(_TableMessage, namespace="resource_table"):
    """The cursor is near the end of the loaded rows and `has_more` is set: fetch the next page."""


class StateChanged(_TableMessage, namespace="resource_table"):
    """Counts, filter, sort or marks changed (footers listen to this)."""
