"""End to end in tmux: names completed as they are typed, and an unknown name said, in the issue filter.

`:issues`, `f`: `author:ali` shows `alice` dimmed after the cursor and `right` takes it; a filter naming a
user the instance does not have says so under the bar instead of showing an empty list.
"""

from __future__ import annotations

import pytest
from tmux_terminal import Terminal, footer_rows, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


def test_completion_and_unknown_names_in_the_filter(demo: Terminal) -> None:
    demo.ready()
    demo.jump("issues")
    demo.wait_until(lambda s: (footer_rows(s) or (0, 0))[1] > 0 and "f Query" in s, "the first issues")
    demo.type("f")
    demo.wait_gone("f Query")
    demo.type("author:ali")
    demo.wait_for("author:alice")  # the suggestion, drawn after what was typed
    demo.keys("Right")
    demo.type(" assignee:nosuchuser")
    demo.keys("Enter")
    screen = demo.wait_for("no user called nosuchuser")
    line = next(row for row in screen.splitlines() if "no user called" in row)
    assert "no issue can match" in line and "author:alice assignee:nosuchuser" in screen
