"""An editor never changes a value the operator did not change: the rule every form that edits a stored
value follows, whatever that value is.

- A stored value the form does not offer (a newer GitLab's, one labdeck's lists lack) is still shown, as it
  is with a note (`shown`), and stays chosen until the operator picks another (`kept_choices`): a choice
  list never falls back to its first entry or to "none".
- A field left as it was filled is read back as the value loaded (`as_loaded`), not re-parsed from the
  widget (an empty text field is not an empty string where the server held null).
- A save sends what differs from the values loaded (`changed`), so a value the operator did not touch is
  left as the instance holds it, even if someone changed it meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any, TypeVar

V = TypeVar("V")
UNKNOWN_NOTE = "not a value labdeck knows"


def shown(value: object, known: Collection[object]) -> str:
    """`value` as a form shows it: as it is, with a note when it is not one of `known` (`45d (not a value
    labdeck knows)`; an empty text is `(blank)`)."""
    text = str(value) if value != "" else "(blank)"
    return text if value in known else f"{text} ({UNKNOWN_NOTE})"


def kept_choices(known: Sequence[tuple[str, V]], loaded: V) -> list[tuple[str, V]]:
    """The `(label, value)` choices of a field whose stored value is `loaded`: `known`, and `loaded` after
    them, shown as it is with the note, when it is not one of them."""
    values = [value for _label, value in known]
    if loaded in values:
        return list(known)
    return [*known, (shown(loaded, values), loaded)]


def as_loaded(widget_value: V, filled: V, loaded: Any, parse: Callable[[V], Any]) -> Any:
    """A field's value for a save: `loaded` while the widget still holds what the form `filled` it with,
    else the widget's value read by `parse`."""
    return loaded if widget_value == filled else parse(widget_value)


def changed(loaded: Mapping[str, Any], edited: Mapping[str, Any]) -> dict[str, Any]:
    """The entries of `edited` that differ from `loaded` (one `loaded` lacks counts as changed): what a save
    sends."""
    return {name: value for name, value in edited.items() if name not in loaded or loaded[name] != value}
