"""`?` help: the keys of the current screen, generated from its active bindings (key, description, id)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static


@dataclass(frozen=True)
class HelpRow:
    key: str
    description: str
    binding_id: str


def help_rows(screen: Screen[Any]) -> list[HelpRow]:
    """One row per enabled action of `screen` (focused widget, screen and app bindings), its keys joined.

    Textual's own unnamed bindings (scrolling, with neither id nor description) are left out."""
    grouped: dict[tuple[int, str, str | None], tuple[list[str], Any]] = {}
    for key, active in screen.active_bindings.items():
        binding = active.binding
        if not active.enabled or binding.system or not (binding.id or binding.description):
            continue
        display = screen.app.get_key_display(binding.with_key(key)) if binding.key else key
        keys, _ = grouped.setdefault((id(active.node), binding.action, binding.id), ([], binding))
        if display not in keys:
            keys.append(display)
    return [HelpRow(", ".join(keys), binding.description or binding.action, binding.id or "")
            for keys, binding in grouped.values()]


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
            for row in self.rows:
                table.add_row(Text(row.key, style="bold"), Text(row.description), Text(row.binding_id))
            yield table
            yield Static("Remap any key in the config: [keymap] id = \"keys\" · escape closes",
                         id="help-footer", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
