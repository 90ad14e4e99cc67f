"""`ResourceView`: a `ResourceTable` with its filter box (`/`), a detail pane (`d`) and a counts footer.

The reusable body of every list screen: a screen builds one with its columns (each says its own cell
text: one declaration per column, no separate cells function), `row_key` and a `detail(row)` function,
fills it with `view.table.set_rows(...)`, and handles the table's messages (`RowSelected`, `LoadMore`).
With `enter_opens_detail`, `enter` opens the cursor row's detail in a `DetailScreen` (for lists whose rows
have nothing bigger to open). Server text reaches the screen only as `rich` objects, never as markup.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar, Literal

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.widget import Widget
from textual.widgets import Input, Static

from labdeck.api.models.tolerant import IDENTITY_UNREADABLE, identity_unreadable
from labdeck.tui.jobs import counted
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.table_model import Column, RowKeyFn, cells_from

DetailFn = Callable[[Any], RenderableType | str]


def footer_text(table: ResourceTable) -> Text:
    """ "1,234 of 100,000 rows · 3 marked · sorted by name ▲ · filter “abc”" (literal, never markup)."""
    model = table.model
    shown, total = model.visible_count, model.row_count
    rows = counted(total, "row")
    parts = [rows if shown == total else f"{shown:,} of {rows}"]
    source = table.count_source() if table.count_source is not None else None
    if source is not None:  # a list read on demand says what it holds of the server's
        parts = [source]
    elif table.has_more:
        parts[0] += " (more to load)"
    if model.marked:
        parts.append(f"{len(model.marked):,} marked")
    if model.sort_column is not None:
        label = next((c.label for c in model.columns if c.key == model.sort_column), model.sort_column)
        parts.append(f"sorted by {label} {'▼' if model.sort_reverse else '▲'}")
    if model.filter_text:
        parts.append(f"filter “{model.filter_text}”")
    return Text(" · ".join(parts), no_wrap=True, overflow="ellipsis")


class ResourceView(Widget):
    """Filter input + `ResourceTable` + detail pane + footer. `view.table` is the table."""

    NARROW: ClassVar[int] = 100  # below this width a side detail pane goes under the table

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "open_filter", "Filter", id="view.filter"),
        Binding("escape", "close_filter", "Clear filter", show=False, id="view.clear_filter"),
        Binding("d", "toggle_detail", "Detail", id="view.detail"),
    ]

    DEFAULT_CSS = """
    ResourceView {
        layout: vertical;
        height: 1fr;
        & > .resource-view--filter { display: none; margin: 0 0; }
        &.-filtering > .resource-view--filter { display: block; }
        & > .resource-view--body { layout: horizontal; height: 1fr; }
        &.-detail-bottom > .resource-view--body { layout: vertical; }
        & .resource-view--detail {
            display: none;
            width: 45%;
            height: 1fr;
            border-left: vkey $foreground 20%;
            padding: 0 1;
            overflow-y: auto;
        }
        &.-detail-bottom .resource-view--detail {
            width: 1fr;
            height: 40%;
            border-left: none;
            border-top: hkey $foreground 20%;
        }
        &.-narrow > .resource-view--body { layout: vertical; }
        &.-narrow .resource-view--detail {
            width: 1fr;
            height: 40%;
            border-left: none;
            border-top: hkey $foreground 20%;
        }
        &.-show-detail .resource-view--detail { display: block; }
        & > .resource-view--footer { height: 1; color: $text-muted; padding: 0 1; }
    }
    """

    def __init__(
        self,
        columns: Sequence[Column],
        rows: Iterable[Any] = (),
        *,
        row_key: RowKeyFn | None = None,
        detail: DetailFn | None = None,
        detail_position: Literal["right", "bottom"] = "right",
        show_detail: bool = False,
        zebra: bool = False,
        empty_text: str = "No rows",
        enter_opens_detail: bool = False,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        if cells_from(columns) is None:  # one declaration per column: no list passes a cells function
            raise ValueError("every column of a ResourceView says its own cell: Column(..., text=...)")
        super().__init__(name=name, id=id, classes=classes)
        self.table = ResourceTable(
            columns, rows, row_key=row_key, zebra=zebra, empty_text=empty_text,
            classes="resource-view--table",
        )
        self.detail = detail
        self.enter_opens_detail = enter_opens_detail and detail is not None
        self.filter_input = Input(placeholder="filter…", classes="resource-view--filter")
        self.detail_pane = Static("", markup=False, classes="resource-view--detail")
        self.footer = Static("", markup=False, classes="resource-view--footer")
        # Set while the list is partial (`tui/list_feed.py`): the filter text goes to the server (after a
        # pause in typing, or at once on enter) instead of filtering the loaded rows.
        self.server_filter: Callable[[str], None] | None = None
        self._server_filter_timer: Any = None
        self.set_class(detail_position == "bottom", "-detail-bottom")
        self.set_class(show_detail and detail is not None, "-show-detail")

    def compose(self) -> ComposeResult:
        yield self.filter_input
        with Container(classes="resource-view--body"):
            yield self.table
            yield self.detail_pane
        yield self.footer

    def on_mount(self) -> None:
        self._update_footer()
        self.refresh_detail()

    def on_resize(self) -> None:
        """Under `NARROW` columns the detail pane moves below the table, which keeps every column."""
        self.set_class(self.size.width < self.NARROW, "-narrow")

    @property
    def filtering(self) -> bool:
        return self.has_class("-filtering")

    @property
    def detail_shown(self) -> bool:
        return self.has_class("-show-detail")

    # ---- actions --------------------------------------------------------------------------------------

    def action_open_filter(self) -> None:
        self.add_class("-filtering")
        self.filter_input.focus()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "close_filter":
            return self.filtering or bool(self.table.filter_text)  # else escape goes on to the screen
        if action == "toggle_detail":
            return self.detail is not None
        return True

    def action_close_filter(self) -> None:
        self.filter_input.value = ""
        self.table.set_filter("")
        self._send_filter("")
        self.remove_class("-filtering")
        self.table.focus()

    def action_toggle_detail(self) -> None:
        self.toggle_class("-show-detail")
        self.refresh_detail()

    # ---- messages -------------------------------------------------------------------------------------

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input is self.filter_input:
            event.stop()
            if self.server_filter is None:
                self.table.set_filter(event.value)
                return
            if self._server_filter_timer is not None:
                self._server_filter_timer.stop()
            self._server_filter_timer = self.set_timer(0.4, lambda: self._send_filter(event.value))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input is self.filter_input:
            event.stop()
            self._send_filter(event.value)
            self.table.focus()

    def _send_filter(self, text: str) -> None:
        if self._server_filter_timer is not None:
            self._server_filter_timer.stop()
            self._server_filter_timer = None
        if self.server_filter is not None:
            self.server_filter(text)

    def on_resource_table_state_changed(self, event: ResourceTable.StateChanged) -> None:
        self._update_footer()
        if self.table.cursor_row is None:  # emptied (a filter, a reload): no row, so no detail of one
            self.refresh_detail()

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.refresh_detail()

    def on_resource_table_row_selected(self, event: ResourceTable.RowSelected) -> None:
        if self.enter_opens_detail and event.table is self.table:
            event.stop()
            self.open_detail()

    def render_detail(self, row: Any) -> RenderableType:
        """`row`'s detail as a renderable; a broken detail function must not take the list down."""
        if self.detail is None:
            return Text("")
        try:
            renderable = self.detail(row)
        except Exception as error:
            renderable = Text(f"(no detail: {type(error).__name__})")
        renderable = Text(renderable) if isinstance(renderable, str) else renderable
        unreadable = getattr(row, "unreadable", ())
        if unreadable and isinstance(renderable, Text):  # tolerant reading: say what could not be read
            renderable = renderable.copy()
            renderable.append(f"\nunreadable: {', '.join(unreadable)} (see :log)", style="yellow")
            if identity_unreadable(row):
                renderable.append(f"\n{IDENTITY_UNREADABLE}", style="yellow")
        return renderable

    def open_detail(self, title: str = "") -> None:
        """The cursor row's detail, full screen (`DetailScreen`)."""
        from labdeck.tui.widgets.detail_screen import DetailScreen

        row = self.table.cursor_row
        if row is None or self.detail is None:
            return
        self.app.push_screen(DetailScreen(title or str(self.screen.title or ""), self.render_detail(row)))

    def _update_footer(self) -> None:
        if self.is_mounted:
            self.footer.update(footer_text(self.table))

    def refresh_detail(self) -> None:
        if not self.is_mounted or not self.detail_shown or self.detail is None:
            return
        row = self.table.cursor_row
        self.detail_pane.update(Text("") if row is None else self.render_detail(row))
