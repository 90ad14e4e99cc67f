"""labdeck's command palette: Textual's, with the page keys made safe while its list is being rebuilt.

Textual 8.2.8 (the newest release) raises `KeyError` in `OptionList._move_page` when `pagedown`/`pageup`
arrive before the option list has been laid out (`ctrl+p` then `pagedown` at once: the list has options
but no lines yet, so the highlighted option has no line). Until a release fixes it, a page key that finds
the list in that state does nothing, as it would on an empty list.
"""

from __future__ import annotations

from textual.command import CommandList, CommandPalette

from labdeck.tui.textual_internals import command_list_ready

PAGE_ACTIONS = frozenset({"page_down", "page_up"})


class LabdeckPalette(CommandPalette):
    """The palette that `ctrl+p` opens."""

    SENDS_NO_WRITE = "the command palette: it runs commands, each of which opens its own form"

    def _action_command_list(self, action: str) -> None:
        if action in PAGE_ACTIONS:
            found = self.query(CommandList)
            if not found or not command_list_ready(found.first()):
                return  # the list is still being built: nothing to page through yet
        super()._action_command_list(action)
