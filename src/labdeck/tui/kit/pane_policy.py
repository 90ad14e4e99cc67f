"""The one policy every pane applies, screens and the tab widgets inside them alike.

A pane declares which of its actions change something (`MUTATING_ACTIONS`), which need a feature the
instance may lack (`FEATURE_ACTIONS`: action -> a `Feature` object of `domain/features.py`), and which act
on the cursor or marked rows by their id (`ROW_ACTIONS`). The kit then, for every pane:

- hides mutating actions in read-only mode (footer, palette, and the key does nothing);
- hides actions whose feature the instance cannot do ("needs GitLab Premium"), or a CI job token cannot reach;
- refuses, with the reason, a row action on an item whose id could not be read (tolerant reading): the app
  asks `identity_refusal` before it runs any action (`LabdeckApp.run_action`);
- lets a row action act on the row the cursor shows when its key is pressed (`row_action_starts`: the
  cursor is not moved under it afterwards to a row a form saved).

It also gives every pane its context (`ctx`: services, policy, jobs, clocks). It may use the context and
the table widget; it knows no area and no resource.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from labdeck.api.models.tolerant import IDENTITY_UNREADABLE, identity_unreadable
from labdeck.domain.features import Feature
from labdeck.tui.context import Context, context_of
from labdeck.tui.textual_internals import bindings_for_key
from labdeck.tui.widgets.resource_table import ResourceTable

if TYPE_CHECKING:
    from textual.widget import Widget as _Pane
else:
    _Pane = object  # a plain mixin at run time: Textual takes a class's CSS (its DEFAULT_CSS and type
    # names) from its first DOMNode base, which must stay the Textual widget, not this mixin


class PanePolicy(_Pane):
    """Mixed into a pane's class before its Textual base (`class MembersPane(PanePolicy, Widget)`)."""

    MUTATING_ACTIONS: ClassVar[frozenset[str]] = frozenset()
    FEATURE_ACTIONS: ClassVar[dict[str, Feature]] = {}
    ROW_ACTIONS: ClassVar[frozenset[str]] = frozenset()

    @property
    def ctx(self) -> Context:
        """The console's typed context (`tui/context.py`): session and services, policy, jobs, clocks,
        navigation. Services are `ctx.services` (`NotConnected` when no instance is)."""
        return context_of(self)

    def policy_allows(self, action: str) -> bool:
        """Whether read-only mode and the instance let `action` run here."""
        ctx = self.ctx
        if action in self.MUTATING_ACTIONS and ctx.read_only:
            return False
        feature = self.FEATURE_ACTIONS.get(action)
        return feature is None or ctx.policy.feature_reason(feature) is None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.policy_allows(action)

    def reload(self) -> None:
        """`r`: read the pane's data again, past the cache (a pane that loads overrides it)."""

    def mark_data_loaded(self) -> None:
        """The pane's data was just read: a screen that shows the data's age says so."""
        mark = getattr(self.screen, "mark_data_loaded", None) if self.is_attached else None
        if callable(mark):
            mark()

    def list_table(self) -> ResourceTable | None:
        """The table whose rows the pane's row actions act on: the focused one, else the first."""
        focused = self.screen.focused if self.is_attached else None
        if isinstance(focused, ResourceTable) and (focused is self or self in focused.ancestors):
            return focused
        tables = list(self.query(ResourceTable))
        return tables[0] if tables else None

    def rows_acted_on(self) -> list[Any]:
        table = self.list_table()
        if table is None:
            return []
        return list(table.marked_rows) or [table.cursor_row]

    def read_only_refusal(self, key: str) -> str | None:
        """What to say when `key` is pressed here and means a change that read-only mode hides (the key
        would otherwise do nothing, silently)."""
        if not self.ctx.read_only:
            return None
        for binding in bindings_for_key(self, key):
            if binding.action in self.MUTATING_ACTIONS:
                return f"read-only: {binding.description or binding.action} is not available"
        return None

    def row_action_starts(self, action: str) -> None:
        """`action` is about to run: a row action reads the row the cursor shows now, and the cursor stays
        under it (a move to a row a form just saved, not yet read again, is dropped: `saved_row.py`)."""
        if action in self.ROW_ACTIONS | getattr(self, "CURSOR_ACTIONS", frozenset()):
            table = self.list_table()
            if table is not None:
                table.keep_cursor()

    def identity_refusal(self, action: str) -> str | None:
        """Why `action` must not run: a row it acts on is an item whose id could not be read."""
        if action not in self.ROW_ACTIONS:
            return None
        return IDENTITY_UNREADABLE if any(identity_unreadable(row) for row in self.rows_acted_on()) else None
