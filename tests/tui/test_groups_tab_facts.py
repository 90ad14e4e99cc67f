"""`:groups` reads what a tab is and does from its entry in `tab_list.GROUP_TABS`: the screen and its
actions never compare tab names, so a new tab is its pane and one list entry."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from labdeck.tui.screens.groups import tab_list

GROUPS = Path(tab_list.__file__).parent
KEYS = {tab.key for tab in tab_list.GROUP_TABS}


@pytest.mark.parametrize("module", ["actions.py", "applied.py", "groups.py", "pane_tabs.py"])
def test_no_tab_is_named_outside_the_tab_list(module: str) -> None:
    tree = ast.parse((GROUPS / module).read_text(encoding="utf-8"))
    named = sorted({node.value for node in ast.walk(tree)
                    if isinstance(node, ast.Constant) and node.value in KEYS})
    assert named == [], f"{module} names the tabs {named}: declare the fact on the tab's entry instead"


def test_every_editing_tab_declares_its_editor_and_the_rest_none() -> None:
    for tab in tab_list.GROUP_TABS:
        assert (tab.editor is not None) == ("add" in tab.actions), tab.key


def test_a_tab_is_a_pane_or_a_table() -> None:
    """Members and Variables are panes (the members and variables panes of every owner): no table, editor
    or screen actions of their own here; a tab declaring both a pane and a table, or neither, is refused."""
    panes = {tab.key for tab in tab_list.GROUP_TABS if tab.pane is not None}
    assert {"projects", "subgroups", "members", "variables", "iterations"} <= panes
    for tab in tab_list.GROUP_TABS:
        if tab.pane is not None:
            declared = (tab.spec, tab.load, tab.editor, tab.actions, tab.footer)
            assert declared == (None, None, None, (), ()), tab
    with pytest.raises(ValueError):
        tab_list.GroupTab("empty", "Empty")
    both = tab_list.TAB_BY_KEY["labels"]
    with pytest.raises(ValueError):
        tab_list.GroupTab("both", "Both", both.spec, both.load, pane=tab_list.GROUP_TABS[2].pane)
