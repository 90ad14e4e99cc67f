"""`:groups` reads what a tab is and does from its entry in `tab_list.GROUP_TABS`: the screen and its
actions never compare tab names, so a new tab is its pane and one list entry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from labdeck.tui.kit.edited import TabEditor
from labdeck.tui.screens.groups import tab_list

GROUPS = Path(tab_list.__file__).parent
KEYS = {tab.key for tab in tab_list.GROUP_TABS}


@pytest.mark.parametrize("module", ["actions.py", "applied.py", "editors.py", "groups.py", "pane_tabs.py"])
def test_no_tab_is_named_outside_the_tab_list(module: str) -> None:
    tree = ast.parse((GROUPS / module).read_text(encoding="utf-8"))
    named = sorted({node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in KEYS})
    assert named == [], f"{module} names the tabs {named}: declare the fact on the tab's entry instead"


def test_every_editing_pane_declares_its_editor() -> None:
    """A pane with `add` (Labels, Badges) adds, edits and deletes through its editor (`EditedPane`)."""
    from labdeck.tui.kit.edited import EditedPane
    from labdeck.tui.screens.groups.panes.labels import LabelsPane

    for cls in (*EditedPane.__subclasses__(), EditedPane):
        bound = {binding.action for klass in cls.__mro__ for binding in klass.__dict__.get("BINDINGS", ())}
        assert {"add", "edit", "delete"} <= bound, cls
        if cls is not EditedPane:
            assert isinstance(cls.EDITOR, TabEditor), cls
    assert {"LabelsPane", "BadgesPane"} <= {cls.__name__ for cls in EditedPane.__subclasses__()}
    assert "subscribe" in LabelsPane.ROW_ACTIONS and "subscribe" in LabelsPane.MUTATING_ACTIONS


def test_every_tab_is_a_pane() -> None:
    """Every tab is one pane module and one entry: no table, loader or actions of the screen's own (the
    members and variables panes are every owner's, the others only a group's)."""
    from labdeck.tui.screens.groups.tab_list import GroupTab

    assert [field for field in GroupTab.__dataclass_fields__] == ["key", "title", "pane"]
    modules = {tab.key: tab.pane.__code__.co_names for tab in tab_list.GROUP_TABS}
    assert all(any(name.endswith("Pane") for name in names) for names in modules.values()), modules
    assert "TabSpec" not in (GROUPS / "groups.py").read_text()  # the screen holds no table of its own
