"""End to end in tmux at 160x50 and 80x24 (issue 36): an administrator opens `:access`, reviews the `fleet`
group (the scope field, then enter), reads the Owners per group on the Members tab, finds the unmasked
`DEPLOY_TOKEN` on the Variables tab (no value anywhere on screen) and the token expiring in 3 days on the
Tokens tab, each list showing its key columns at 80x24 too."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_terminal import Terminal, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]

SIZES = [(160, 50), (80, 24)]


@pytest.fixture(params=SIZES, ids=lambda size: f"{size[0]}x{size[1]}")
def terminal(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Terminal]:
    """`labdeck --demo` in a tmux session of the size asked, with its own config, state and cache."""
    width, height = request.param
    term = Terminal(f"labdeck-e2e-{uuid.uuid4().hex[:8]}", tmp_path / "exit-status")
    env = {"LABDECK_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path)}
    term.start(f"{sys.executable} -m labdeck --demo; sleep 30", env, width=width, height=height)
    try:
        yield term
    finally:
        term.close()


def test_access_review_of_fleet(terminal: Terminal) -> None:
    terminal.ready()
    terminal.jump("access")
    terminal.wait_for("Type a group's path")  # nothing read before a scope is chosen; the field has focus
    terminal.type("fleet")
    terminal.keys("Enter")
    screen = terminal.wait_for("Owners: fleet/core 5")
    header = next(line for line in screen.splitlines() if "User" in line and "Level" in line)
    assert "Where" in header, header

    terminal.type("]")  # Variables
    screen = terminal.wait_until(lambda s: "with findings" in s and "DEPLOY_TOKEN" in s, "the variables")
    header = next(line for line in screen.splitlines() if "Key" in line and "Where" in line)
    assert "Findings" in header, header
    assert "fleet-deploy-token" not in screen and "edge-deploy-token" not in screen
    assert "looks secret, not masked" in screen or "looks secret" in screen

    terminal.type("]")  # Tokens
    screen = terminal.wait_until(lambda s: "release-bot" in s and "expiring in 30 days" in s, "the tokens")
    header = next(line for line in screen.splitlines() if "Token" in line and "State" in line)
    assert "Owner" in header and "Expires" in header, header
    line = next(line for line in screen.splitlines() if "release-bot" in line)
    assert "(3d)" in line, line
