"""`?` help: the keys of the current screen, generated from its active bindings (key, description, id).

It opens on the focused screen's own keys (issue 33): first what the footer shows for the pane that has
the focus, in the footer's order (`footer_order`), then the rest of the screen's keys (its own bindings
and its panes'), then the keys of the focused list or field itself (moving, marking, sorting), and last,
under "Everywhere", the app's keys that work on every screen (jump, palette, back, refresh, quit). At 80x24
the help may fill the terminal (no spacing lines), so the screen's own keys are on screen without
scrolling.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from labdeck.tui.kit.pane_policy import PanePolicy

SECTIONS = ("pane", "screen", "widget", "app")  # the order help lists keys in
EVERYWHERE = "Everywhere"  # the line above the app's keys


@dataclass(frozen=True)
class HelpRow:
    key: str
    description: str
    binding_id: str
    action: str = ""
    section: str = "app"  # one of SECTIONS: whose key it is


def _section(screen: Screen[Any], node: Any, action: str, pane: tuple[str, ...]) -> str:
    if isinstance(node, App):
        return "app"
    if action in pane:
        return "pane"
    return "screen" if node is screen or isinstance(node, PanePolicy) else "widget"


def help_rows(screen: Screen[Any]) -> list[HelpRow]:
    """One row per enabled action of `screen` (focused widget, screen and app bindings), its keys joined,
    in `SECTIONS` order: the focused pane's footer keys first, in the footer's order.

    Textual's own unnamed bindings (scrolling, with neither id nor description) are left out."""
    order_of = getattr(screen, "footer_order", None)
    pane = tuple(order_of() or ()) if callable(order_of) else ()
    grouped: dict[tuple[int, str, str | None], tuple[list[str], Binding, str]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not active.enabled or binding.system or not (binding.id or binding.description):
            continue
        display = screen.app.get_key_display(binding.with_key(key)) if binding.key else key
        section = _section(screen, active.node, binding.action, pane)
        keys, _, _ = grouped.setdefault((id(active.node), binding.action, binding.id), ([], binding, section))
        if display not in keys:
            keys.append(display)
    rows = [HelpRow(", ".join(keys), binding.description or binding.action, binding.id or "", binding.action,
                    section) for keys, binding, section in grouped.values()]
    return sorted(rows, key=lambda row: (SECTIONS.index(row.section),
                                         pane.index(row.action) if row.section == "pane" else 0))


class HelpScreen(ModalScreen[None]):
    SENDS_NO_WRITE = "help text; sends nothing"

    CSS_PATH = "help.tcss"
    BINDINGS = [
        Binding("escape", "close", "Close", id="help.close"),
        Binding("question_mark", "close", "Close", id="help.close_again", show=False),
        Binding("q", "close", "Close", id="help.close_q", show=False),
    ]

    def __init__(self, title: str, rows: list[HelpRow]) -> None:
        super().__init__()
        self.help_title = title
        self.rows = rows

    @classmethod
    def for_screen(cls, screen: Screen[Any]) -> HelpScreen:
        title = screen.title or type(screen).__name__
        return cls(str(title), help_rows(screen))

    def compose(self) -> ComposeResult:
        with Vertical(id="help-box"):
            yield Static(Text(f"Keys · {self.help_title}", style="bold"), id="help-title")
            table: DataTable[Text] = DataTable(id="help-table", cursor_type="row", zebra_stripes=True)
            table.add_columns(Text("Key"), Text("Action"), Text("Id (for [keymap])"))
            own = False  # a key of the screen listed: the app's keys then come under a line of their own
            for row in self.rows:
                if row.section == "app" and own:
                    table.add_row(Text(""), Text(EVERYWHERE, style="bold dim"), Text(""))
                own = row.section != "app"
                table.add_row(Text(row.key, style="bold"), Text(row.description), Text(row.binding_id))
            yield table
            yield Static("Remap any key in the config: [keymap] id = \"keys\" · escape closes",
                         id="help-footer", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
