"""End to end in tmux: an administrator looks at a user blocked by directory sync (LDAP).

`:users` shows the condition tabs; `c` steps through them (Active hides blocked users, Blocked shows
them); `/` filters to `ldap.user`, whose detail lists every operation refused, each with its reason, and
whose moderation menu (`m`) offers nothing; escape closes it.
"""

from __future__ import annotations

import pytest
from tmux_terminal import Terminal, detail_text, footer_rows, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]

TABS = ("All", "Active", "Pending approval", "Blocked", "Banned", "Deactivated", "Dormant")
REASONS = (
    "block: 403 Forbidden - LDAP blocked users cannot be modified by the API",
    "unblock: 403 Forbidden - LDAP blocked users cannot be unblocked by the API",
    "ban: You cannot ban ldap_blocked users.",
    "unban: You cannot unban ldap_blocked users.",
)


def rows(screen: str) -> tuple[int, int]:
    """(shown, total) of the list's footer, (0, 0) before it is drawn."""
    return footer_rows(screen) or (0, 0)


def test_ldap_blocked_user_shows_refused_operations_with_reasons(demo: Terminal) -> None:
    demo.ready()
    demo.jump("users")
    screen = demo.wait_until(lambda s: "ldap.user" in s and rows(s)[1] > 1, "the list of every user")
    tab_line = next(line for line in screen.splitlines() if "Pending approval" in line)
    assert all(tab in tab_line for tab in TABS), tab_line
    demo.wait_for("m Moderate")  # the table has the focus
    everyone = rows(screen)[1]

    demo.type("c")  # Active: blocked users leave the list
    demo.wait_gone("ldap.user")
    demo.type("c")  # Pending approval
    demo.wait_until(lambda s: "pending.user" in s and "alice" not in s, "the Pending approval tab")
    demo.type("c")  # Blocked: both kinds of blocked users, nobody active
    screen = demo.wait_until(lambda s: "ldap.user" in s and "blocked.user" in s and "pending.user" not in s
                             and 0 < rows(s)[1] < everyone, "the Blocked tab")
    assert "alice" not in screen

    screen = demo.filter_rows("ldap")
    assert rows(screen)[0] == 1
    screen = demo.wait_for("blocked (directory sync)")  # the detail of the one row left
    detail = demo.wait_until(lambda s: all(r in detail_text(s) for r in REASONS), "the refusal reasons")
    text = detail_text(detail)
    assert "✓" not in text  # no operation is allowed
    assert text.count("✗") >= len(REASONS), text

    demo.keys("Enter")  # back from the filter box to the table, the filter stays
    demo.wait_for("m Moderate")
    demo.type("m")
    menu = demo.wait_for("enter: choose · escape: cancel")
    assert "Moderate ldap.user" in menu
    demo.keys("Escape")
    demo.wait_gone("enter: choose")
    assert "tasks 0" in demo.screen()
