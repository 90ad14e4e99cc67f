"""One action declaration: a key, what it runs, its label and its policy, written once (issue 33).

A pane or screen declares `ACTIONS = (Action("e", "edit", "Edit", id="issues.edit", mutating=True,
row=True), ...)`; from that one tuple the kit derives, when the class is created (`derive`, called by
`PanePolicy.__init_subclass__`):

- the Textual `BINDINGS` of the class (key, action, description, `show`, `priority`, `key_display` and
  the keymap `id`, so a user's `[keymap]` keeps working);
- the pane policy's tables (`kit/pane_policy.py`): `MUTATING_ACTIONS` (hidden in read-only mode),
  `ROW_ACTIONS` (act on the cursor or marked rows by their id), `CURSOR_ACTIONS` (open something about
  the cursor row), `FEATURE_ACTIONS` (action -> the `Feature` it needs);
- the footer order of a pane or screen (`FOOTER_ORDER`): its entries with `footer=True`, in declaration
  order, with `Shown("select")` for a key bound elsewhere (the list, the tab bar, the screen) shown at that
  place; a class that names no footer entry keeps its base's order. A screen with parts of its own (a
  conditions bar, a filter row, a text field) names their footers in `FOOTER_PANES` (`screens/base.py`):
  an order across its widgets, which the walk of every screen checks against these declarations;
- the palette (`area_commands.area_actions`): every action with a label, `palette=False` left out, and
  `palette="Approve, block, ban, deactivate a user"` an extra entry with those words.

Actions merge along the MRO like bindings, mixins included: a plain mixin (`IssueActions`) brings its
actions to the screen or pane it is mixed into, their ids relative to the host's `ACTION_IDS` (an `id`
starting with "." is the host's prefix + it). A subclass's action replaces its bases' actions of the same
name. Two actions of one class on the same key (its bases' included), a derived table or `BINDINGS`
written by hand, or a relative id without `ACTION_IDS` are refused when the class is created
(`ActionDeclarationError`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import KW_ONLY, dataclass, replace
from typing import Any

from textual.binding import Binding
from textual.dom import DOMNode

from labdeck.domain.features import Feature

# The tables derived from ACTIONS: a class that writes one by hand is refused (one declaration)
DERIVED = ("MUTATING_ACTIONS", "ROW_ACTIONS", "CURSOR_ACTIONS", "FEATURE_ACTIONS", "FOOTER_ORDER",
           "PALETTE_EXTRA")


class ActionDeclarationError(TypeError):
    """A class's actions contradict each other (raised when the class is created)."""


@dataclass(frozen=True)
class Action:
    """One key of a pane or screen. `action` is what Textual runs (`action_<name>`, parameters allowed);
    `description` the footer's and help's label; `id` the keymap id. `mutating`: hidden and refused in
    read-only mode; `row`: acts on the cursor or marked rows by their id; `cursor`: opens something about
    the cursor row (needs one); `feature`: what the instance must offer; `footer`: shown in the class's
    footer at this place; `palette`: False leaves it out of the palette, a string adds an entry."""

    key: str
    action: str
    description: str = ""
    _: KW_ONLY
    id: str  # required: users remap keys by it (`[keymap]`)
    show: bool = True
    priority: bool = False
    key_display: str | None = None
    mutating: bool = False
    row: bool = False
    cursor: bool = False
    feature: Feature | None = None
    footer: bool = False
    palette: bool | str = True

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(key.strip() for key in self.key.split(","))

    def binding(self) -> Binding:
        return Binding(self.key, self.action, self.description, show=self.show, key_display=self.key_display,
                       priority=self.priority, id=self.id or None)


@dataclass(frozen=True)
class Shown:
    """A key bound elsewhere (the list's enter, the tab bar's `]`, the screen's `f`) or by a mixin, shown in
    the class's footer at this place."""

    action: str


Entry = Action | Shown


def shown(names: Iterable[str]) -> tuple[Shown, ...]:
    """`Shown` entries for names such as `LIST_KEYS` (the keys every list offers)."""
    return tuple(Shown(name) for name in names)


def _own_entries(cls: type[Any]) -> tuple[Entry, ...]:
    entries: tuple[Entry, ...] = cls.__dict__.get("ACTIONS", ())
    return entries


def _is_node(cls: type[Any]) -> bool:
    return issubclass(cls, DOMNode)


def _resolved(action: Action, host: type[Any]) -> Action:
    if action.id.startswith("."):
        prefix = getattr(host, "ACTION_IDS", "")
        if not prefix:
            raise ActionDeclarationError(f"{host.__name__}: {action.action} has a relative id {action.id!r} "
                                         "but the class names no ACTION_IDS")
        return replace(action, id=prefix + action.id)
    return action


def _brought_in(cls: type[Any]) -> list[type[Any]]:
    """The plain mixins (not Textual nodes) whose actions `cls` brings in: those no node base has already."""
    node_bases = [base for base in cls.__mro__[1:] if _is_node(base)]
    had = {mixin for base in node_bases for mixin in base.__mro__}
    return [base for base in reversed(cls.__mro__[1:])
            if not _is_node(base) and "ACTIONS" in base.__dict__ and base not in had]


def own_actions(cls: type[Any]) -> list[Action]:
    """The actions `cls` binds itself: its mixins' (ids resolved against `cls`) and its own."""
    found: list[Action] = []
    for source in (*_brought_in(cls), cls):
        found.extend(_resolved(entry, cls) for entry in _own_entries(source) if isinstance(entry, Action))
    return found


def _grouped(actions: Iterable[Action]) -> dict[str, list[Action]]:
    found: dict[str, list[Action]] = {}
    for action in actions:
        found.setdefault(action.action, []).append(action)
    return found


def declared_actions(cls: type[Any]) -> tuple[Action, ...]:
    """Every action `cls` declares, its bases' and mixins' included; a subclass's action replaces its
    bases' actions of the same name. Set on the class as `DECLARED_ACTIONS` by `derive`."""
    merged: dict[str, list[Action]] = {}
    for base in reversed(cls.__mro__[1:]):
        merged.update(_grouped(base.__dict__.get("DECLARED_ACTIONS", ())))
    merged.update(_grouped(own_actions(cls)))
    return tuple(action for actions in merged.values() for action in actions)


def _check(cls: type[Any], actions: tuple[Action, ...]) -> None:
    keys: dict[str, Action] = {}
    for action in actions:
        for key in action.keys:
            known = keys.get(key)
            if known is not None and known.action != action.action:
                raise ActionDeclarationError(f"{cls.__name__}: key {key!r} is declared for both "
                                             f"{known.action} and {action.action}")
            keys[key] = action
    by_name: dict[str, Action] = {}
    for action in actions:
        first = by_name.setdefault(action.action, action)
        if (first.mutating, first.row, first.cursor, first.feature) != (
                action.mutating, action.row, action.cursor, action.feature):
            raise ActionDeclarationError(
                f"{cls.__name__}: the keys of {action.action} disagree on its policy")


def _footer(cls: type[Any]) -> tuple[str, ...] | None:
    entries = [*(entry for mixin in _brought_in(cls) for entry in _own_entries(mixin)), *_own_entries(cls)]
    names = [entry.action for entry in entries if isinstance(entry, Shown) or entry.footer]
    return tuple(dict.fromkeys(names)) if names else None


def derive(cls: type[Any]) -> None:
    """Derive the class's bindings, policy tables, footer order and palette entries from its ACTIONS (see
    the module docstring); called when the class is created, before Textual merges its bindings."""
    own = cls.__dict__
    written = [name for name in DERIVED if name in own]
    if written:
        raise ActionDeclarationError(f"{cls.__name__} writes {', '.join(written)} by hand: declare its "
                                     "actions in ACTIONS (kit/actions.py), the tables are derived from them")
    if "BINDINGS" in own:
        raise ActionDeclarationError(f"{cls.__name__} writes BINDINGS by hand: declare its keys in ACTIONS "
                                     "(kit/actions.py), its bindings are derived from them")
    mine = own_actions(cls)
    if "ACTIONS" in own or mine:
        cls.BINDINGS = [action.binding() for action in mine]
    actions = declared_actions(cls)
    _check(cls, actions)
    cls.DECLARED_ACTIONS = actions
    cls.MUTATING_ACTIONS = frozenset(a.action for a in actions if a.mutating)
    cls.ROW_ACTIONS = frozenset(a.action for a in actions if a.row)
    cls.CURSOR_ACTIONS = frozenset(a.action for a in actions if a.cursor)
    cls.FEATURE_ACTIONS = {a.action: a.feature for a in actions if a.feature is not None}
    cls.PALETTE_EXTRA = tuple((a.palette, a.action) for a in actions if isinstance(a.palette, str))
    footer = _footer(cls)
    if footer is not None:
        cls.FOOTER_ORDER = footer


def off_palette(cls: type[Any]) -> frozenset[str]:
    """The actions of `cls` declared `palette=False`."""
    return frozenset(a.action for a in getattr(cls, "DECLARED_ACTIONS", ()) if a.palette is False)


def actions_by_name(cls: type[Any]) -> Mapping[str, list[Action]]:
    """The declared actions of `cls` by action name (an action may have several keys)."""
    return _grouped(getattr(cls, "DECLARED_ACTIONS", ()))
