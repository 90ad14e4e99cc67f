"""Keymap: every `Binding` of the app and its screens carries an `id`; `[keymap]` in the config maps ids to
keys (`refresh = "ctrl+r"`), applied with Textual's `App.set_keymap`. Unknown ids are reported, not fatal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from textual.binding import Binding, BindingType
from textual.dom import DOMNode


def declared_bindings(node_class: type[DOMNode]) -> list[tuple[type[DOMNode], Binding]]:
    """`(declaring class, Binding)` for the class's own BINDINGS and its bases' (tuples converted)."""
    found: list[tuple[type[DOMNode], Binding]] = []
    for cls in reversed(node_class.__mro__):
        declared: list[BindingType] = cls.__dict__.get("BINDINGS", [])
        for item in declared:
            items = [item] if isinstance(item, Binding) else list(Binding.make_bindings([item]))
            found.extend((cls, binding) for binding in items)
    return found


def bindings_of(node_class: type[DOMNode]) -> list[Binding]:
    """The `Binding`s a class declares, its bases' included."""
    return [binding for _, binding in declared_bindings(node_class)]


def binding_ids(classes: Iterable[type[DOMNode]]) -> dict[str, Binding]:
    """Every binding id declared by `classes`."""
    ids: dict[str, Binding] = {}
    for cls in classes:
        for binding in bindings_of(cls):
            if binding.id:
                ids.setdefault(binding.id, binding)
    return ids


def missing_ids(classes: Iterable[type[DOMNode]]) -> list[str]:
    """`Class: key -> action` for each binding labdeck declares without an id (a test keeps this empty)."""
    missing = []
    for node_class in classes:
        for cls, binding in declared_bindings(node_class):
            if not binding.id and not binding.system and cls.__module__.startswith("labdeck"):
                missing.append(f"{cls.__name__}: {binding.key} -> {binding.action}")
    return missing


def check_keymap(keymap: Mapping[str, str], known: Iterable[str]) -> tuple[dict[str, str], list[str]]:
    """Entries to apply (every well-formed one: screens added later may declare more ids) and warnings."""
    known_ids = set(known)
    usable: dict[str, str] = {}
    warnings: list[str] = []
    for binding_id, keys in keymap.items():
        if not isinstance(keys, str) or not keys.strip():
            warnings.append(f"keymap.{binding_id}: keys must be a non-empty string like \"ctrl+r\"")
            continue
        if binding_id not in known_ids:
            warnings.append(f"keymap.{binding_id}: no known binding has this id")
        usable[binding_id] = keys.replace(" ", "")
    return usable, warnings
