"""End to end in tmux: keys typed right after a jump reach the area that opens (issue 24, type-ahead), on a
sandbox that answers at once and on one that takes 400 ms a request: `:projects` enter `/api-gate` in one
burst filters the projects; `:issues` enter `f label:bug` enter filters the issues; and nothing typed goes
into the prompt after its enter (`No view called :projects/api-gate`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_terminal import Terminal, labdeck_in_tmux, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


@pytest.fixture(params=[0, 400], ids=["0ms", "400ms"])
def terminal(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Terminal]:
    """labdeck in tmux against a sandbox with `param` ms of latency (0: `--demo`)."""
    with labdeck_in_tmux(tmp_path, request.param) as term:
        yield term


def test_keys_typed_after_a_jump_reach_the_area(terminal: Terminal) -> None:
    terminal.wait_for("Request log", timeout=60)
    terminal.wait_for("root", timeout=60)
    terminal.type(":projects")
    terminal.keys("Enter")
    terminal.type("/api-gate")  # one burst with the jump: before Projects is on screen
    # the filter reached Projects: applied to the rows (a complete list) or sent to the server as its search
    # (a list still partial when the keys arrived, as on a busy machine)
    screen = terminal.wait_until(lambda s: "filter “api-gate”" in s or "search “api-gate” on the server" in s,
                                 "the filtered projects", timeout=60)
    assert "No view called" not in screen
    terminal.keys("Escape", "Escape", "Escape")
    terminal.wait_for("Request log")
    terminal.type(":issues")
    terminal.keys("Enter")
    terminal.type("flabel:bug")
    terminal.keys("Enter")
    screen = terminal.wait_until(lambda s: "▊  label:bug" in s and "f Query" in s, "the filtered issues",
                                 timeout=60)
    assert "No view called" not in screen


def test_jumps_chained_in_one_burst_each_reach_their_area(terminal: Terminal) -> None:
    """The jump race: `:projects` enter `:users` enter `:deployments` enter and a path, in one burst, used to
    end in a prompt holding `users:deployments...` (an enter lost behind the next `:`)."""
    terminal.wait_for("Request log", timeout=60)
    terminal.wait_for("root", timeout=60)
    terminal.type(":projects")
    terminal.keys("Enter")
    terminal.type(":users")
    terminal.keys("Enter")
    terminal.type(":deployments")
    terminal.keys("Enter")
    terminal.type("acme/platform/api-gateway")
    terminal.keys("Enter")
    screen = terminal.wait_until(lambda s: "Deployments —" in s and "production" in s, "the deployments",
                                 timeout=60)
    assert "No view called" not in screen and "users:" not in screen
