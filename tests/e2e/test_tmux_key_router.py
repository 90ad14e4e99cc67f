"""End to end in tmux (issue 33, the key router): each sequence the issue found by hand is typed in one burst
(one `tmux send-keys` holding every key) on a sandbox that answers at once, on one that takes 400 ms a
request, and with the machine busy (a busy loop beside labdeck, started and stopped by the test). Every key
reaches its target (the text typed is exactly what the field holds), no dialog opens from a typed letter
(the screens read while waiting never show one), and after a form the focus is on the list it acted on
(its keys in the footer, the key typed after the form reaching it). The setup before each burst waits for
the screen, gesture by gesture; only the burst itself is typed blind. Run with
`.venv/bin/python -m pytest -m e2e tests/e2e/test_tmux_key_router.py` (about 4 minutes on 2 cores).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from tmux_terminal import (
    DETAIL_EDGE,
    OPEN_KEY,
    Terminal,
    busy_machine,
    footer_rows,
    labdeck_in_tmux,
    needs_tmux,
)

pytestmark = [pytest.mark.e2e, pytest.mark.slow, needs_tmux]

CONDITIONS = {"0ms": (0, False), "400ms": (400, False), "busy": (0, True)}
TIMEOUT = 60.0  # a condition wait returns as soon as the screen shows it; this is for a loaded machine


@pytest.fixture(params=list(CONDITIONS))
def terminal(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Terminal]:
    """labdeck in tmux under one of the `CONDITIONS`. Fifteen runs of labdeck take minutes: the suite runs
    when asked for (`-m e2e` or `-m slow`), not in the default run."""
    marks = request.config.getoption("markexpr") or ""
    if "e2e" not in marks and "slow" not in marks:
        pytest.skip("the key router's tmux suite runs with -m e2e or -m slow")
    latency, busy = CONDITIONS[request.param]
    with ExitStack() as stack:
        term = stack.enter_context(labdeck_in_tmux(tmp_path, latency))
        if busy:
            stack.enter_context(busy_machine())
        term.ready()
        yield term


def never_showing(terminal: Terminal, done: Callable[[str], object], forbidden: list[str], what: str) -> str:
    """Wait until `done(screen)`, failing at once if a screen read meanwhile shows any of `forbidden` (a
    dialog a typed letter opened, a field holding what was meant for another)."""
    def check(screen: str) -> bool:
        shown = [text for text in forbidden if text in screen]
        assert not shown, f"{shown} on screen while waiting for {what}:\n{screen}"
        return bool(done(screen))

    return terminal.wait_until(check, what, TIMEOUT)


def footer_line(screen: str) -> str:
    lines = [line for line in screen.splitlines() if "? Help" in line]
    return lines[-1] if lines else ""


def test_a_filter_typed_in_one_burst_filters_and_opens_no_dialog(terminal: Terminal) -> None:
    """`:projects` with its list loaded, `/api-gateway` in one burst: the `a` opened "Archive project"."""
    terminal.jump("projects")
    terminal.wait_for(OPEN_KEY, TIMEOUT)
    terminal.wait_match(r"projects 1-\d+ of|\d+ rows", TIMEOUT)  # the list loaded (partial or whole)
    terminal.type("/api-gateway")
    screen = never_showing(terminal, lambda s: "filter “api-gateway”" in s
                           or "search “api-gateway” on the server" in s,
                           ["Archive project", "Unarchive project", "Archive fleet", "Archive acme"],
                           "the filtered projects")
    assert "acme/platform/api-gateway" in terminal.wait_for("acme/platform/api-gateway", TIMEOUT) or screen


def test_a_query_typed_after_a_jump_keeps_every_letter_and_f_replaces_it(terminal: Terminal) -> None:
    """From an empty `:issues`, home, then `:issues` enter `flabel:bug` enter in one burst: the query read
    `bel:bug`; then `fXYZ` in one burst: the query is exactly `XYZ` (it once kept only the `Z`)."""
    terminal.jump("issues")
    terminal.wait_for("Filter▊", TIMEOUT)
    terminal.wait_for(OPEN_KEY, TIMEOUT)
    terminal.type("f")
    terminal.wait_gone(OPEN_KEY, TIMEOUT)
    terminal.keys("C-u")
    terminal.type("assignee:nosuchuser")
    terminal.keys("Enter")
    terminal.wait_for("no user called nosuchuser", TIMEOUT)
    terminal.wait_for(OPEN_KEY, TIMEOUT)  # the table has the focus again: escape leaves the area
    terminal.keys("Escape")
    terminal.wait_for("Home —", TIMEOUT)

    terminal.keys(":issues", "Enter", "flabel:bug", "Enter")
    never_showing(terminal, lambda s: re.search(r"Filter▊  label:bug\s+▎", s) and OPEN_KEY in s,
                  ["unknown filter", "Filter▊  bel:bug", "No view called"], "the query label:bug applied")
    terminal.wait_until(lambda s: (footer_rows(s) or (0, 0))[1] > 0, "the bugs listed", TIMEOUT)

    terminal.keys("fXYZ")
    never_showing(terminal, lambda s: re.search(r"Filter▊  XYZ\s+▎", s),
                  ["Filter▊  Z ", "label:bugXYZ"], "the query replaced by XYZ")


def test_keys_typed_after_a_confirmed_save_open_the_next_area(terminal: Terminal) -> None:
    """The cleanup policy panel, the focus in its Remove field: ctrl+s, Confirm (tab, enter), `:issues`
    enter in one burst. The focus stayed in the field and the regex became `nightly-.*x:issues`; now the
    save leaves the field for the tag table and the jump opens `:issues`."""
    terminal.jump("registry")
    terminal.wait_for("Project or group", TIMEOUT)
    terminal.type("acme/platform/web-portal")
    terminal.keys("Enter")
    terminal.wait_match(r"project acme/platform/web-portal: (\d+) repositories", TIMEOUT)
    terminal.wait_for("x Delete repository", TIMEOUT)  # the table has the focus
    terminal.type("p")
    terminal.wait_for("Cleanup policy of acme/platform/web-portal", TIMEOUT)
    terminal.wait_match(r"next run deletes (\d+) tags", TIMEOUT)
    terminal.keys("Tab", "Tab", "Tab", "Tab")  # Enabled, Runs every, Keep newest, Older than: Remove
    terminal.keys("End")
    terminal.type("x")
    terminal.wait_for("nightly-.*x ", TIMEOUT)  # the Remove field has the focus: a change to save

    terminal.keys("C-s", "Tab", "Enter", ":issues", "Enter")
    never_showing(terminal, lambda s: "Issues —" in s and OPEN_KEY in s,
                  ["nightly-.*x:", "nightly-.*x\t", "No view called", "Nothing to save"], "the issues opened")
    terminal.jump("log")
    terminal.filter_rows("PUT")
    terminal.wait_match(r"PUT\s+200 .*/projects/", TIMEOUT)  # the save itself went through
    terminal.keys("Escape", "Escape")  # the filter closed, then back to the area before
    terminal.jump("registry")  # back to the panel as it was left
    screen = terminal.wait_for("Cleanup policy of acme/platform/web-portal", TIMEOUT)
    assert re.search(r"▼\s+nightly-\.\*x\s{4,}", screen), screen  # the pattern as saved, nothing typed in
    footer = footer_line(terminal.wait_until(lambda s: OPEN_KEY in footer_line(s), "the tag table's keys",
                                             TIMEOUT))
    assert "/ Filter" in footer  # the focus on the tag table


def test_the_storage_view_opens_on_its_list(terminal: Terminal) -> None:
    """`t` on `:registry` with a group in scope, then `/api` in the same burst: the storage view opened with
    the focus on a hidden field (its keys in the footer, typing went nowhere); now on its list."""
    terminal.jump("registry")
    terminal.wait_for("Project or group", TIMEOUT)
    terminal.type("acme")
    terminal.keys("Enter")
    terminal.wait_match(r"group acme: (\d+) repositories", TIMEOUT)
    terminal.wait_for("x Delete repository", TIMEOUT)
    terminal.keys("t/api")
    screen = never_showing(terminal, lambda s: "Registry storage of acme" in s and "filter “api”" in s,
                           ["Delete repository?"], "the storage view filtered")
    assert "Registry storage of acme" in screen
    terminal.keys("Escape")  # the filter field hands the focus back to the list: its keys in the footer
    terminal.wait_until(lambda s: OPEN_KEY in footer_line(s), "the storage list's keys", TIMEOUT)


def test_a_member_added_from_the_tree_leaves_the_focus_on_the_members_list(terminal: Terminal) -> None:
    """`:groups`, the Members tab of acme shown, the tree focused: `a`, a username, ctrl+s and `d` in one
    burst. The focus went back to the tree; now it is on the members list, where the `d` typed while the
    form was saving opens the detail of the list's row."""
    terminal.jump("groups")
    terminal.wait_for("Acme Corporation", TIMEOUT)
    terminal.keys("]")
    terminal.wait_for("Subgroup", TIMEOUT)
    terminal.keys("]")
    terminal.wait_for("direct members", TIMEOUT)
    terminal.wait_for("frank", TIMEOUT)
    assert "space Expand" in footer_line(terminal.screen())  # the tree has the focus

    terminal.keys("a", "dormant.user", "C-s", "d")
    screen = never_showing(terminal, lambda s: "dormant.user" in s and "Doris Dormant" in s
                           and DETAIL_EDGE in s and "e Change level" in footer_line(s),
                           ["dormant.userd"], "the member added, the list focused")
    assert "space Expand" not in footer_line(screen)
