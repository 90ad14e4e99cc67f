"""End to end: `labdeck --demo` in a real terminal (tmux), typed at with send-keys, read with capture-pane."""

from __future__ import annotations

import pytest
from tmux_terminal import Terminal, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


def test_demo_home_jump_help_and_quit(demo: Terminal) -> None:
    demo.wait_for("Request log")
    home = demo.wait_for("root")  # the status bar shows the signed-in user once GET /user answers
    assert "Projects" in home
    demo.type(":")
    demo.wait_for("view name")  # the jump prompt is up before we type into it
    demo.type("projects")
    demo.keys("Enter")
    demo.wait_for("rows")  # the ResourceView footer with its counts
    demo.wait_for("Projects —")  # the projects screen's title
    demo.type("?")
    demo.wait_for("table.mark")  # help lists binding ids of the current screen
    demo.keys("Escape")
    demo.wait_gone("table.mark")  # help closed: the next escape reaches the projects screen
    demo.wait_for("Projects —")
    demo.keys("Escape")
    demo.wait_for("Request log")
    demo.type("q")
    assert demo.exit_status() == "0"
