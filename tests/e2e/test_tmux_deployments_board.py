"""End to end: the group deployments board in `labdeck --demo` in a real terminal (tmux) at 160x50 and
80x24: `:deployments`, the group path, the board with failures first; enter opens a project's deployments,
escape comes back."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_terminal import Terminal, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


@pytest.fixture(params=[(160, 50), (80, 24)], ids=["160x50", "80x24"])
def sized(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Terminal]:
    width, height = request.param
    env = {"LABDECK_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path)}
    term = Terminal(f"labdeck-e2e-board-{uuid.uuid4().hex[:8]}")
    term.start(f"{sys.executable} -m labdeck --demo; sleep 30", env, width=width, height=height)
    try:
        yield term
    finally:
        term.close()


def table_lines(screen: str) -> list[str]:
    lines = screen.splitlines()
    start = next(i for i, line in enumerate(lines) if "Project" in line and "Status" in line)
    return lines[start + 1:]


def test_the_board_in_a_terminal(sized: Terminal) -> None:
    sized.ready()
    sized.jump("deployments")
    sized.wait_for("⏎ Apply")  # the path prompt has the focus (its keys in the footer)
    sized.type("fleet")
    sized.keys("Enter")
    screen = sized.wait_for("without")  # the board is complete ("N without environments", wraps at 80)
    assert "36 projects," in screen and "failed in 24h" in screen
    rows = table_lines(sized.wait_for("production"))
    assert "failed" in rows[0] and "fleet/" not in rows[0]  # failures first, paths below the group
    first = rows[0].split()[1]  # the project's path below fleet
    sized.keys("Enter")
    opened = sized.wait_for("Deployments per day")
    assert "Deployments —" in opened and f"fleet/{first}"[:40] in opened.replace("…", "")
    sized.keys("Escape")
    sized.wait_for("without")
    sized.type("q")
