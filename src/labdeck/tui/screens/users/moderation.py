"""The moderation menu of `:users` (`m`): the operations the domain rules allow for one user or the marked
users, the others listed disabled with their reason; and which operations ask for a typed confirmation
(`TYPED`) or are harmless enough for a plain one (`GENTLE`). It sends nothing: the screen that opens it
acts on the choice.
"""

from __future__ import annotations

from typing import Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from labdeck.domain.moderation import Operation
from labdeck.tui.screens.confirm import Cancellable

TYPED: Final = frozenset({Operation.BAN, Operation.REJECT})  # the name must be typed
GENTLE: Final = frozenset({Operation.APPROVE, Operation.ACTIVATE, Operation.UNBLOCK, Operation.UNBAN})
Availability = tuple[Operation, bool, str | None]


def operations_text(rows: list[Availability]) -> Text:
    """`✓ approve` / `✗ ban: You cannot ban blocked users.` (reasons are literal text)."""
    text = Text()
    for op, enabled, reason in rows:
        if enabled:
            text.append(f"\n  ✓ {op.label}", style="green")
        else:
            text.append(f"\n  ✗ {op.label}", style="dim")
            text.append(f": {reason or 'not allowed'}", style="dim")
    return text


class OperationMenu(Cancellable[Operation | None], ModalScreen[Operation | None]):
    """The moderation operations for one user or for the marked users: allowed ones can be chosen,
    the others are listed disabled with their reason."""

    SENDS_NO_WRITE = "a menu of moderation operations: the screen sends the one chosen after a confirmation"

    CSS_PATH = "users.tcss"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="users_menu.cancel")]
    AUTO_FOCUS = "#users-menu-options"

    def __init__(self, title: Text, rows: list[Availability]) -> None:
        super().__init__()
        self.menu_title = title
        self.rows = rows

    def compose(self) -> ComposeResult:
        options = []
        for op, enabled, reason in self.rows:
            label = Text(op.label, style="bold" if enabled else "dim")
            if reason:
                label.append(f" — {reason}", style="dim")
            options.append(Option(label, id=op.value, disabled=not enabled))
        with Vertical(classes="users-menu-box"):
            yield Static(self.menu_title, markup=False, classes="users-menu-title")
            yield OptionList(*options, id="users-menu-options")
            yield Static("enter: choose · escape: cancel", classes="users-menu-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(Operation(str(event.option.id)))

