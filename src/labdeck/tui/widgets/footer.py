"""`LabdeckFooter`: the keys of what has focus, most useful first; `?` (help) lists every key.

Textual's own footer lists every `show=True` binding in the order it meets them (focused widget, its
parents, the screen, the app), so a pane shows keys that do nothing there and the useful ones end up past
the right edge. labdeck's footer asks the screen instead: `footer_order()` names the actions of the pane
that has focus, most useful first (`show` does not matter: the list decides). Then come the keys that work
everywhere (`TAIL`: back, jump, palette, refresh, quit); `? Help` stays at the right edge (the other keys
scroll beside it), so it is on screen at any width. An action the pane does not name is not shown (`?`
lists it, if it is enabled).

A pane's class and a screen's have their own `FOOTER_ORDER`, derived from their declared actions
(`kit/actions.py`: the project view's tabs, the screen's default); a screen names the footers of its parts
in `FOOTER_PANES` (`LabdeckScreen.footer_order`): a widget id (the focused widget or one of its parents) ->
actions. While a text field has
focus the footer shows `TYPING`: the letters are typed, so only chords, enter and escape work. Where nothing
is named, Textual's own order is kept. While a dialog is open over the screen, the footer shows the dialog's
keys (`follow`), not the keys of the screen under it, which do nothing until the dialog closes; first among
them what enter does there, following the focus ("enter Cancel", "enter Delete":
`screens/enter_key.enter_does`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.cells import cell_len
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import HorizontalScroll
from textual.geometry import Size
from textual.screen import Screen
from textual.widgets import Footer

from labdeck.tui.textual_internals import FooterKey

TAIL = ("close_filter", "back", "jump", "command_palette", "refresh", "quit", "quit_anywhere")
TYPING = ("submit", "submit_form", "move_focus(1)", "close_filter", "back", "command_palette", "quit",
          "quit_anywhere")  # (ctrl+q: `q` is typed)
HELP = ("help", "help_anywhere")  # kept at the right edge: always on screen
# Textual's stock descriptions, in labdeck's words
LABELS = {"select_cursor": "Open", "toggle_node": "Expand", "submit": "Apply", "show_overlay": "Choose",
          "select": "Open"}


class FooterEntry(NamedTuple):
    key: str
    binding: Binding
    enabled: bool
    tooltip: str


def covering_dialog(screen: Screen[Any]) -> Screen[Any] | None:
    """The modal screen open over `screen` (what has the keys now), or None."""
    try:
        top = screen.app.screen
    except Exception:  # no screen stack (closing)
        return None
    return top if top is not screen and top.is_modal and screen in screen.app.screen_stack else None


def enter_entry(dialog: Screen[Any]) -> FooterEntry | None:
    """The footer's "enter <what it does>" for an open dialog, None when enter does nothing worth saying."""
    from labdeck.tui.screens.enter_key import enter_does

    said = enter_does(dialog)
    if not said:
        return None
    return FooterEntry("enter", Binding("enter", "dialog_enter", said, key_display="⏎"), True, "")


def footer_entries(screen: Screen[Any]) -> tuple[list[FooterEntry], FooterEntry | None]:
    """The keys the footer shows for `screen` now, in order, and the help key (None: not available)."""
    dialog = covering_dialog(screen)
    shown, help_entry = _entries(dialog or screen)
    enter = enter_entry(dialog) if dialog is not None else None
    if enter is not None:  # what enter does comes first (it replaces a binding of enter the dialog shows)
        shown = [enter, *(entry for entry in shown if entry.key != "enter")]
    return shown, help_entry


def _entries(screen: Screen[Any]) -> tuple[list[FooterEntry], FooterEntry | None]:
    active = screen.active_bindings
    first: dict[str, FooterEntry] = {}
    for key, item in active.items():
        known = first.get(item.binding.action)
        if known is None or (item.binding.show and not known.binding.show):  # `q` rather than ctrl+q
            first[item.binding.action] = FooterEntry(key, item.binding, item.enabled, item.tooltip)
    help_entry = next((first[name] for name in HELP if name in first), None)
    order_of = getattr(screen, "footer_order", None)
    order = order_of() if callable(order_of) else None
    if order is None:  # a screen that names nothing: Textual's order
        shown = [entry for entry in first.values() if entry.binding.show and entry is not help_entry]
        return shown, help_entry
    names = [name for name in dict.fromkeys([*order, *TAIL]) if name not in HELP]
    return [first[name] for name in names if name in first], help_entry


class LabdeckFooterKey(FooterKey):
    """A footer key that knows its width from its words. Textual measures a key by drawing it (its two parts'
    styles looked up and put together), and a key is measured again each time the row is laid out after a
    change of size: at every focus move that relabels the row and at every resize. The width is the
    padding its part styles give plus the cells of its words, as `FooterKey.render` puts them together."""

    def get_content_width(self, container: Size, viewport: Size) -> int:
        if not self.description:  # the key alone, without padding
            return cell_len(self.key_display)
        key = self.get_component_styles("footer-key--key").padding
        words = self.get_component_styles("footer-key--description").padding
        return (key.left + cell_len(self.key_display) + key.right
                + words.left + cell_len(self.description) + words.right)


class LabdeckFooter(Footer):
    """The footer of labdeck's screens (compact: more keys fit at 80 columns)."""

    DEFAULT_CSS = """
    LabdeckFooter > .footer-keys {
        width: 1fr; height: 1; layout: horizontal; overflow-x: auto; overflow-y: hidden; scrollbar-size: 0 0;
    }
    LabdeckFooter > FooterKey.-help { width: auto; padding-left: 1; border-left: vkey $foreground 20%; }
    LabdeckFooter.-compact > FooterKey.-help { margin-right: 0; }
    """

    def __init__(self) -> None:
        super().__init__(show_command_palette=False, compact=True)
        self._recomposing = False
        self._again = False
        self._showing: tuple[object, ...] | None = None  # what the keys on screen say (`_said`)
        self._planned: tuple[list[FooterEntry], FooterEntry | None] | None = None  # for the next compose

    async def recompose(self) -> None:
        """One recompose at a time: two in flight would both remove the old keys, then both mount their
        own; a request while one runs becomes one more run after it. Textual asks again on every focus
        move and binding check; when the keys would say the same, the ones on screen stay."""
        if self._recomposing:
            self._again = True
            return
        self._recomposing = True
        try:
            self._again = True
            while self._again:
                self._again = False
                planned = self._plan()
                said = self._said(planned)
                if said == self._showing:
                    continue
                if not await self._relabel(planned):
                    self._planned = planned
                    await super().recompose()
                    self._planned = None  # (not composed when detached meanwhile: never used later)
                self._showing = said if self.is_attached else None
        finally:
            self._recomposing = False

    async def _relabel(self, planned: tuple[list[FooterEntry], FooterEntry | None] | None) -> bool:
        """Show `planned` on the keys already on screen, each one changed only where it says something else;
        keys added or taken away at the end of the row. False when that cannot be done (nothing shown yet,
        the help key coming or going, a row being replaced): then the footer is composed again. A focus
        move changes a few keys of the row, and a new key costs a mount and its styles."""
        rows = [child for child in self.children if child.has_class("footer-keys")]
        helps = [child for child in self.children if isinstance(child, FooterKey)]
        if planned is None or len(rows) != 1 or self._showing is None:
            return False
        entries, help_entry = planned
        if len(helps) != (help_entry is not None):
            return False
        keys = [child for child in rows[0].children if isinstance(child, FooterKey)]
        for key, entry in zip(keys, entries, strict=False):
            self._set(key, entry)
        if help_entry is not None:
            self._set(helps[0], help_entry)
        if len(entries) > len(keys):
            await rows[0].mount_all([self._key(entry) for entry in entries[len(keys):]])
        elif len(keys) > len(entries):
            await rows[0].remove_children(keys[len(entries):])
        return True

    def _face(self, entry: FooterEntry) -> tuple[str, str, str, str]:
        """What a footer key shows for `entry`: its key, how the key is written, the words, the action."""
        binding = entry.binding
        return entry.key, self.app.get_key_display(binding), _description(binding), binding.action

    def _set(self, key: FooterKey, entry: FooterEntry) -> None:
        """`key` shows `entry` (what `_key` would make of it), redrawn and measured again if it changed."""
        shown = self._face(entry)
        if shown != (key.key, key.key_display, key.description, key.action):
            key.key, key.key_display, key.description, key.action = shown
            key.clear_cached_dimensions()
            key.refresh(layout=True)
        key._disabled = not entry.enabled
        key.set_class(not entry.enabled, "-disabled")
        if (key.tooltip or "") != entry.tooltip:
            key.tooltip = entry.tooltip or None

    def _plan(self) -> tuple[list[FooterEntry], FooterEntry | None] | None:
        """The keys to show now (`footer_entries`), None before the bindings are known."""
        if not self._bindings_ready or not self.is_attached:
            return None
        return footer_entries(self.screen)

    def _said(self, planned: tuple[list[FooterEntry], FooterEntry | None] | None) -> tuple[object, ...]:
        """What `planned` keys say on screen: each key, its label, action, whether it works."""
        if planned is None:
            return ()
        entries, help_entry = planned

        def said(entry: FooterEntry) -> tuple[object, ...]:
            return (*self._face(entry), entry.enabled, entry.tooltip)
        return (self.compact, tuple(said(entry) for entry in entries),
                None if help_entry is None else said(help_entry))

    def compose(self) -> ComposeResult:
        planned, self._planned = self._planned, None  # what `recompose` just worked out, if it did
        if planned is None:
            if not self._bindings_ready:
                return
            planned = footer_entries(self.screen)
        entries, help_entry = planned
        # scrolls; the help key beside it stays on screen. A class, not an id: a recompose asked from the
        # screen's idle callbacks can mount the new row while the old one's removal is still pending
        with HorizontalScroll(classes="footer-keys"):
            for entry in entries:
                yield self._key(entry)
        if help_entry is not None:
            yield self._key(help_entry, classes="-help")

    def follow(self) -> None:
        """Show the keys of the dialog just opened over the screen (and follow its focus), or, once it has
        closed, the screen's own keys again."""
        dialog = covering_dialog(self.screen)
        if dialog is not None:
            dialog.bindings_updated_signal.subscribe(self, self._dialog_keys_changed)
        self.call_after_refresh(self.recompose)

    def _dialog_keys_changed(self, _dialog: Screen[Any]) -> None:
        if self.is_attached:
            self.call_after_refresh(self.recompose)

    def _key(self, entry: FooterEntry, classes: str = "") -> FooterKey:
        key = LabdeckFooterKey(*self._face(entry), disabled=not entry.enabled, tooltip=entry.tooltip,
                               classes=classes)
        key.set_reactive(FooterKey.compact, self.compact)  # not data_bind: a recompose may run in the
        return key  # screen's context (`follow`), where there is no Footer to bind to


def _description(binding: Binding) -> str:
    """What the footer says a binding does (Textual's stock words in labdeck's, where it has its own)."""
    if binding.description in ("Select", "Toggle", "Submit", "Show menu"):
        return LABELS.get(binding.action, binding.description)
    return binding.description


# The keys every list offers after its own (filter, detail, sort, browser): the tail of a list pane.
LIST_KEYS = ("open_filter", "toggle_detail", "cycle_sort", "open_in_browser", "watch")
# The keys that walk a tabbed view's tabs, offered by each of its tabs.
TAB_KEYS = ("next_tab", "previous_tab")
