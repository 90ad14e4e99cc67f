"""The one policy every pane applies, screens and the tab widgets inside them alike.

A pane declares its actions once (`ACTIONS`, `kit/actions.py`): which change something (`mutating=True`),
which need a feature the instance may lack (`feature=`, a `Feature` object of `domain/features.py`), and
which act on the cursor or marked rows by their id (`row=True`). When the class is created its bindings
and the tables this policy reads (`MUTATING_ACTIONS`, `FEATURE_ACTIONS`, `ROW_ACTIONS`, `CURSOR_ACTIONS`)
are derived from them (`__init_subclass__`). The kit then, for every pane:

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
from labdeck.tui.kit.actions import Action, Entry, derive
from labdeck.tui.textual_internals import bindings_for_key
from labdeck.tui.widgets.resource_table import ResourceTable

if TYPE_CHECKING:
    from textual.widget import Widget as _Pane
else:
    _Pane = object  # a plain mixin at run time: Textual takes a class's CSS (its DEFAULT_CSS and type
    # names) from its first DOMNode base, which must stay the Textual widget, not this mixin


class PanePolicy(_Pane):
    """Mixed into a pane's class before its Textual base (`class MembersPane(PanePolicy, Widget)`)."""

    ACTIONS: ClassVar[tuple[Entry, ...]]  # its actions, declared once (`kit/actions.py`)
    # derived from the class's ACTIONS and its bases' (`kit/actions.derive`), never written by hand
    DECLARED_ACTIONS: ClassVar[tuple[Action, ...]]
    MUTATING_ACTIONS: ClassVar[frozenset[str]]
    FEATURE_ACTIONS: ClassVar[dict[str, Feature]]
    ROW_ACTIONS: ClassVar[frozenset[str]]
    CURSOR_ACTIONS: ClassVar[frozenset[str]]
    PALETTE_EXTRA: ClassVar[tuple[tuple[str, str], ...]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        derive(cls)  # before Textual merges the class's bindings (DOMNode.__init_subclass__)
        super().__init_subclass__(**kwargs)

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
        if action in self.ROW_ACTIONS | self.CURSOR_ACTIONS:
            table = self.list_table()
            if table is not None:
                table.keep_cursor()

    def identity_refusal(self, action: str) -> str | None:
        """Why `action` must not run: a row it acts on is an item whose id could not be read."""
        if action not in self.ROW_ACTIONS:
            return None
        return IDENTITY_UNREADABLE if any(identity_unreadable(row) for row in self.rows_acted_on()) else None


derive(PanePolicy)  # its empty tables, the base of every pane's
