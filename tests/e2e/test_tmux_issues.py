"""End to end in tmux: a person types issue queries into the filter bar.

`:issues`, `f` to the query bar: a query with an error (`author:alice author:bob`) shows a clear message
under the bar and loads nothing; a valid one (`label:bug`) clears the message and lists the bug issues.
"""

from __future__ import annotations

import re

import pytest
from tmux_terminal import Terminal, detail_text, footer_rows, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]

LOADED = re.compile(r"· data \d+ \S+ old")


def rows(screen: str) -> int:
    """The list's row count from its footer (0 before it is drawn)."""
    return (footer_rows(screen) or (0, 0))[1]


def test_query_error_is_explained_then_a_valid_query_lists_rows(demo: Terminal) -> None:
    demo.ready()
    demo.jump("issues")
    demo.wait_until(lambda s: rows(s) > 0 and "f Query" in s, "the first issues")
    demo.wait_until(LOADED.search, "the whole listing")  # the status bar's data age
    everything = rows(demo.wait_steady(rows, "the row count"))

    demo.type("f")
    demo.wait_gone("f Query")  # the query bar has the focus (the table's keys left the footer)
    demo.type("author:alice author:bob")
    demo.keys("Enter")
    screen = demo.wait_for("Filter error:")
    error = next(line for line in screen.splitlines() if "Filter error:" in line)
    assert "author:bob" in error and "author:alice" in error, error
    assert "conflicts" in error, error
    assert rows(screen) == everything  # nothing was loaded for the bad query

    demo.keys("C-u")  # clear the bar (the cursor is at its end)
    demo.type("label:bug")
    # the typed text, not the bar's greyed example (which also begins with `label:bug `)
    demo.wait_until(lambda s: "▊  label:bug " in s and 'assignee:none "text"' not in s, "label:bug typed")
    demo.keys("Enter")
    screen = demo.wait_until(lambda s: "Filter error" not in s and 0 < rows(s) < everything
                             and "f Query" in s, "the bug issues")
    demo.wait_until(lambda s: re.search(r"\blabels\b.*\bbug\b", detail_text(s)), "a bug in the detail")
    assert "Filter error" not in demo.screen()
