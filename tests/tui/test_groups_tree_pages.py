"""The group tree reads a level a page at a time (issue 25: on gitlab.com a level holds thousands of groups):
the first page shows, a "more" line reads the next on enter, and a group named by path is found by reading on.
Pages are made two groups long here so that the tiny sandbox's three top-level groups take two pages."""

from __future__ import annotations

import pytest
from snapshot_apps import make_app, settle

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.groups import groups as groups_screen
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.groups.tree import GroupTree

SIZE = (120, 36)


def shown(tree: GroupTree) -> list[str]:
    return [str(node.label) for node in tree.root.children]


def top_level_requests(app: object) -> int:
    return sum(e.path.startswith("/groups?") for e in app.request_log.entries)  # type: ignore[attr-defined]


async def test_a_level_shows_its_first_page_and_enter_on_more_reads_the_next(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(groups_screen, "PAGE", 2)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = GroupsScreen(AreaRequest())
        await app.push_screen(screen)
        await settle(pilot, rounds=2)
        tree = screen.query_one(GroupTree)
        labels = shown(tree)
        assert labels[:2] == ["Acme", "Hidden Lab"] and labels[2].startswith("… more groups (1-2 of")
        assert top_level_requests(app) == 1, "one page read, none ahead of the operator"
        tree.focus()
        tree.move_cursor(tree.root.children[2])
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        assert shown(tree) == ["Acme", "Hidden Lab", "Open Source"]
        assert not tree.more and top_level_requests(app) == 2


async def test_a_group_named_by_path_beyond_the_first_page_is_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(groups_screen, "PAGE", 1)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = GroupsScreen(AreaRequest(scope="opensource"))
        await app.push_screen(screen)
        await settle(pilot, rounds=3)
        assert screen.group is not None and screen.group.full_path == "opensource"
        assert shown(screen.query_one(GroupTree)) == ["Acme", "Hidden Lab", "Open Source"]


async def test_a_level_cut_at_max_pages_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages of one group and `max_pages = 2`: the third top-level group is past the limit; the level
    ends in a line that says it was cut (issue 32 item 8), not in silence as if it were whole."""
    from dataclasses import replace

    from snapshot_apps import sandbox_settings

    monkeypatch.setattr(groups_screen, "PAGE", 1)
    app = make_app(settings=replace(sandbox_settings(), max_pages=2))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = GroupsScreen(AreaRequest())
        await app.push_screen(screen)
        await settle(pilot, rounds=2)
        tree = screen.query_one(GroupTree)
        tree.focus()
        tree.move_cursor(tree.root.children[1])  # "… more groups"
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        assert shown(tree)[:2] == ["Acme", "Hidden Lab"]
        tree.move_cursor(tree.root.children[2])
        await pilot.press("enter")
        await settle(pilot, rounds=2)
        assert "Open Source" not in shown(tree)
        assert shown(tree)[2] == "… groups the first 2 of 3, cut at max_pages (raise max_pages to read on)"
