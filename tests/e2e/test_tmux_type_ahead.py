"""End to end in tmux: keys typed right after a jump reach the area that opens (issue 24, type-ahead), on a
sandbox that answers at once and on one that takes 400 ms a request: `:projects` enter `/api-gate` in one
burst filters the projects; `:issues` enter `f label:bug` enter filters the issues; and nothing typed goes
into the prompt after its enter (`No view called :projects/api-gate`)."""

from __future__ import annotations

import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_terminal import Terminal, needs_tmux

pytestmark = [pytest.mark.e2e, needs_tmux]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(params=[0, 400], ids=["0ms", "400ms"])
def terminal(request: pytest.FixtureRequest, tmp_path: Path, demo: Terminal) -> Iterator[Terminal]:
    """labdeck in tmux against a sandbox with `param` ms of latency (0: the `demo` fixture itself)."""
    if request.param == 0:
        yield demo
        return
    demo.close()
    port = _free_port()
    server = subprocess.Popen([sys.executable, "-m", "labdeck", "sandbox", "serve", "--port", str(port),
                               "--latency", f"{request.param}ms"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    config = tmp_path / "slow.toml"
    config.write_text(f'default_instance = "slow"\n[instances.slow]\nurl = "http://127.0.0.1:{port}"\n'
                      'token = "glpat-sandbox-root"\n')
    config.chmod(0o600)
    name = f"labdeck-e2e-{uuid.uuid4().hex[:8]}"
    term = Terminal(name)
    env = {"LABDECK_CONFIG": str(config), "XDG_STATE_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    term.start(f"{sys.executable} -m labdeck; sleep 30", env)
    try:
        yield term
    finally:
        term.close()
        server.terminate()
        server.wait(timeout=10)


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
