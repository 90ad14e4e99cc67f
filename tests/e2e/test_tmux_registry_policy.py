"""End to end in tmux at 80x24: a person opens a project's cleanup policy from `:registry`, reads what its
next run deletes and why, changes "keep newest" and sees the preview follow, and leaves without saving."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_terminal import Terminal, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


@pytest.fixture
def small(tmp_path: Path) -> Iterator[Terminal]:
    """`labdeck --demo` in an 80x24 tmux session with its own config, state and cache."""
    env = {"LABDECK_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path)}
    status = tmp_path / "exit-status"
    term = Terminal(f"labdeck-e2e-{uuid.uuid4().hex[:8]}", status)
    term.start(f"{sys.executable} -m labdeck --demo; echo $? > {status}; sleep 30", env, width=80, height=24)
    try:
        yield term
    finally:
        term.close()


def test_policy_panel_previews_and_leaves_without_saving(small: Terminal) -> None:
    demo = small
    demo.ready()
    demo.jump("registry")
    demo.wait_for("Project or group")
    demo.type("acme/platform/web-portal")
    demo.keys("Enter")
    demo.wait_match(r"project acme/platform/web-portal: (\d+) repositories")
    demo.wait_for("x Delete repository")  # the table has the focus
    demo.type("p")
    demo.wait_for("Cleanup policy of")
    summary = demo.wait_match(r"enabled: next run deletes (\d+) tags")
    assert int(summary.group(1)) == 0
    demo.wait_for("matches no tag")  # the seeded policy's pattern matches nothing, said in words
    screen = demo.screen()
    assert "Runs every" in screen and "Keep (RE2)" in screen
    demo.keys("Escape", "Escape")  # out of the editor's field to the tag table, then out of the panel
    demo.wait_gone("Cleanup policy of")
    demo.jump("log")
    demo.wait_for("Request log —")
    assert "PUT" not in demo.screen()
