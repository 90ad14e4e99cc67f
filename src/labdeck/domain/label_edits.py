"""What a labels edit changes: the labels added and the labels removed, never the whole list.

Sending `labels=` replaces every label of an issue with what the field held, so a field whose text was
replaced by a stray key (a Tab that selected the whole field, then a letter) silently removed labels the
operator never touched. labdeck sends `add_labels` and `remove_labels` computed from the difference, and the
form names what will be removed before it is saved.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


def split_labels(text: str) -> list[str]:
    """The labels of a comma-separated field, in order, without blanks or repeats."""
    return list(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))


@dataclass(frozen=True)
class LabelEdit:
    added: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def empty(self) -> bool:
        return not self.added and not self.removed

    def fields(self) -> dict[str, str]:
        """The issue update's parameters (`add_labels`, `remove_labels`), only those that change."""
        out = {}
        if self.added:
            out["add_labels"] = ",".join(self.added)
        if self.removed:
            out["remove_labels"] = ",".join(self.removed)
        return out

    def applied_to(self, labels: Iterable[str]) -> bool:
        """Whether an issue with `labels` shows this edit done (every added one there, no removed one)."""
        present = set(labels)
        return set(self.added) <= present and not set(self.removed) & present


def label_edit(old: Iterable[str], new_text: str) -> LabelEdit:
    """The edit from the labels an issue had to what the field holds now."""
    before = list(dict.fromkeys(old))
    after = split_labels(new_text)
    return LabelEdit(added=tuple(name for name in after if name not in before),
                     removed=tuple(name for name in before if name not in after))
