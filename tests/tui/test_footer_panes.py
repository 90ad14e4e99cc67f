"""The footer (read from its `FooterKey` widgets), tested once on the screens that show each of its rules: the
keys of what has focus come first, in the pane's declared order (a tabbed screen's tab by tab, `:groups`;
a list, its query field, the detail over it, `:issues`); keys that do nothing there are not shown; `? Help`
is always there (kept at the right edge), and `?` lists the keys the footer leaves out; a dialog's keys
replace the screen's. That every screen's footer shows its declared keys is the class-level walk of every
screen's actions (`test_action_declaration.py`); the Pilot walks of every screen that were here are gone
(issue 35)."""

from __future__ import annotations

from typing import Any

from areas_fixtures import open_screen
from snapshot_apps import make_app, settle
from textual.widgets import TabbedContent
from textual.widgets._footer import FooterKey

from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.groups.tree import GroupTree
from labdeck.tui.screens.issues.issues import IssuesScreen
from labdeck.tui.screens.shell.help import HelpScreen, help_rows
from labdeck.tui.widgets.footer import LabdeckFooter

SIZE = (120, 36)
# Keys that belong to one pane only: shown anywhere else, they would be a key that does nothing there.
PANE_ONLY = {"reveal", "subscribe", "toggle_inherited", "toggle_billable", "toggle_override",
             "export_relations", "import_group", "delete_tags", "apply", "undo", "cancel_job", "moderate",
             "copy_value", "new_tag", "add_member", "new_page", "new_domain", "unlink", "toggle_archive",
             "set_status", "delete_repository", "add_rule"}


async def footer(pilot: Any) -> list[str]:
    """The actions the footer shows, left to right (the help key last: it is kept at the right edge)."""
    await settle(pilot)
    await pilot.pause()
    bar = pilot.app.screen.query_one(LabdeckFooter)
    return [key.action for key in bar.query(FooterKey)]


async def check(pilot: Any, first: list[str], own: set[str] = frozenset()) -> list[str]:  # type: ignore[assignment]
    """The footer starts with `first`, ends with help, and shows no pane-only key but the pane's `own`."""
    shown = await footer(pilot)
    assert shown[:len(first)] == first, shown
    assert shown[-1] in ("help", "help_anywhere"), shown
    stray = (PANE_ONLY - own - set(first)) & set(shown)
    assert not stray, (stray, shown)
    return shown


async def test_groups_tree_and_each_tab_show_their_own_keys_first() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, GroupsScreen(AreaRequest(scope="acme")), rounds=2)
        assert isinstance(screen, GroupsScreen)
        screen.query_one(GroupTree).focus()
        await check(pilot, ["select_cursor", "toggle_node", "next_tab", "previous_tab", "toggle_tree"])
        expected = {
            "projects": ["select", "next_tab", "previous_tab", "toggle_tree"],
            "members": ["select", "add_member", "edit_member", "remove_member", "toggle_inherited",
                        "toggle_billable", "toggle_override"],
            "labels": ["select", "add", "edit", "delete", "subscribe"],
            "badges": ["select", "add", "edit", "delete", "next_tab"],
            "variables": ["select", "edit_variable", "add_variable", "delete_variable", "reveal"],
            "transfer": ["export_to", "export_relations", "import_group"],
        }
        for tab, first in expected.items():
            screen.query_one("#groups-tabs", TabbedContent).active = f"tab-{tab}"
            await settle(pilot, rounds=2)
            screen.table(tab).focus()
            shown = await check(pilot, first, {"copy_value"} if tab == "variables" else set())
            if tab != "members":
                assert "reveal" not in shown or tab == "variables", (tab, shown)


async def test_issues_list_its_fields_and_its_detail() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen(), rounds=2)
        screen.table.focus()
        await check(pilot, ["select", "edit", "comment", "bulk", "toggle_mark", "focus_query"])
        await pilot.press("f")  # the query field: letters are typed, the footer offers what works there
        shown = await check(pilot, ["submit", "move_focus(1)", "back", "command_palette"])
        assert shown[-1] == "help_anywhere"  # f1: `?` is a letter in a field
        assert {"edit", "bulk", "quit", "jump", "refresh"}.isdisjoint(shown)
        await pilot.press("escape")  # back to the list; enter opens the issue's detail over it
        await settle(pilot)
        screen.table.move_cursor(0)
        await pilot.press("enter")
        await settle(pilot)
        assert app.screen is not screen
        shown = [key.action for key in screen.query_one(LabdeckFooter).query(FooterKey)]
        assert shown == ["close"], shown  # the detail's key, none of the list's


async def test_help_lists_what_the_footer_leaves_out() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen(), rounds=2)
        screen.table.focus()
        shown = set(await footer(pilot))
        listed = {row.binding_id for row in help_rows(screen)}
        assert {"table.mark_all", "table.unmark_all", "table.sort_reverse"} <= listed  # not in the footer
        assert not {"mark_all", "unmark_all", "reverse_sort"} & shown
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)


async def test_a_dialog_over_a_screen_puts_its_own_keys_in_the_footer() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen(), rounds=2)
        screen.table.focus()
        assert (await footer(pilot))[0] == "select"
        await pilot.press("colon")  # the jump prompt: its keys, not the list's (which do nothing now)
        await settle(pilot)
        bar = screen.query_one(LabdeckFooter)
        shown = [key.action for key in bar.query(FooterKey)]
        assert shown == ["dialog_enter", "complete", "cancel"], shown  # what enter does first (issue 33)
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen is screen
        assert (await footer(pilot))[0] == "select"



def _shown(bar: LabdeckFooter) -> list[tuple[object, ...]]:
    return [(key.key, key.key_display, key.description, key.action, key.has_class("-disabled"),
             key.has_class("-help"), key.tooltip) for key in bar.query(FooterKey)]


async def test_a_focus_move_relabels_the_keys_on_screen_as_a_new_footer_would_show_them() -> None:
    """The footer changes the keys it already shows (`LabdeckFooter._relabel`) rather than composing a new
    row: what it shows after fewer, then more keys is what a footer composed afresh shows."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_screen(pilot, IssuesScreen(), rounds=2)
        bar = screen.query_one(LabdeckFooter)
        screen.table.focus()
        await footer(pilot)
        on_the_list = set(map(id, bar.query(FooterKey)))
        for move in ("f", "escape"):  # the query field (fewer keys), the list again (more)
            await pilot.press(move)
            await footer(pilot)
            relabelled = _shown(bar)
            assert on_the_list & set(map(id, bar.query(FooterKey)))  # the same widgets, relabelled
            bar._showing = None  # as if nothing were shown: composed afresh
            await bar.recompose()
            await footer(pilot)
            assert _shown(bar) == relabelled
            on_the_list = set(map(id, bar.query(FooterKey)))


async def test_a_footer_key_is_as_wide_as_textual_measures_it_by_drawing_it() -> None:
    """`LabdeckFooterKey` works its width out from its words; Textual's `FooterKey` draws the key to measure
    it. Both agree, compact or not, with and without words, for wide and combining characters."""
    from textual.app import App, ComposeResult
    from textual.geometry import Size

    from labdeck.tui.widgets.footer import LabdeckFooterKey

    faces = [("q", "q", "Quit"), ("enter", "⏎", "Open"), ("ctrl+e", "^e", "日本語 export"), ("x", "x", ""),
             ("y", "e\u0301", "cafe\u0301 ✓"), ("f5", "F5", "Refresh")]

    class Keys(App[None]):
        def compose(self) -> ComposeResult:
            for compact in (True, False):
                for key, shown, words in faces:
                    widget = LabdeckFooterKey(key, shown, words, "noop", disabled=key == "x")
                    widget.set_reactive(FooterKey.compact, compact)
                    widget.set_class(compact, "-compact")
                    yield widget

    async with Keys().run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        keys = list(pilot.app.query(LabdeckFooterKey))
        assert len(keys) == 2 * len(faces)
        widths = set()
        for key in keys:
            for container in (Size(80, 1), Size(10, 1)):
                drawn = FooterKey.get_content_width(key, container, Size(80, 24))
                key.clear_cached_dimensions()
                assert key.get_content_width(container, Size(80, 24)) == drawn, (key.key, key.compact)
                widths.add((key.key, key.compact, drawn))
        assert ("q", True, 6) in widths and ("q", False, 8) in widths, widths  # the padding counts
