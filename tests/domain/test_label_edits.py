"""A labels edit is the labels added and removed, never the whole list (issue 22 item 12)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.label_edits import label_edit, split_labels

NAME = st.text(alphabet=st.characters(blacklist_characters=",", blacklist_categories=("Cs", "Zs", "Cc")),
               min_size=1, max_size=8)


@given(st.lists(NAME, unique=True, max_size=6), st.lists(NAME, unique=True, max_size=6))
def test_the_edit_turns_the_old_labels_into_the_new_ones(old: list[str], new: list[str]) -> None:
    edit = label_edit(old, ", ".join(new))
    result = [name for name in old if name not in edit.removed] + list(edit.added)
    assert set(result) == set(new)
    assert not set(edit.removed) - set(old)  # only labels the issue had are ever removed
    assert edit.applied_to(result)


def test_fields_carry_only_what_changes() -> None:
    edit = label_edit(["bug", "p1"], "bug, p1, ui")
    assert edit.fields() == {"add_labels": "ui"}
    assert label_edit(["bug"], "bug").empty and label_edit(["bug"], "bug").fields() == {}
    assert label_edit(["bug", "p1"], "p1").fields() == {"remove_labels": "bug"}
    assert split_labels(" a, ,b,a ") == ["a", "b"]
