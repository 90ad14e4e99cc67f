"""End to end: `labdeck --demo` in a real terminal (tmux), typed at with send-keys, read with capture-pane."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux not installed")]


class Terminal:
    """One tmux session running a command."""

    def __init__(self, name: str) -> None:
        self.name = name

    def keys(self, *keys: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, *keys], check=True)

    def type(self, text: str) -> None:
        subprocess.run(["tmux", "send-keys", "-t", self.name, "-l", text], check=True)

    def screen(self) -> str:
        out = subprocess.run(["tmux", "capture-pane", "-p", "-t", self.name], capture_output=True, text=True)
        return out.stdout

    def wait_for(self, text: str, timeout: float = 20.0) -> str:
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if text in screen:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{text!r} never appeared on screen:\n{screen}")

    def alive(self) -> bool:
        return subprocess.run(["tmux", "has-session", "-t", self.name], capture_output=True).returncode == 0


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Terminal]:
    name = f"labdeck-e2e-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "LABDECK_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path), "TERM": "xterm-256color"}
    status = tmp_path / "exit-status"
    command = f"{sys.executable} -m labdeck --demo; echo $? > {status}; sleep 30"
    subprocess.run(["tmux", "new-session", "-d", "-s", name, "-x", "140", "-y", "40", command],
                   check=True, env=env)
    term = Terminal(name)
    term.status_file = status  # type: ignore[attr-defined]
    try:
        yield term
    finally:
        subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


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
    time.sleep(0.3)
    demo.keys("Escape")
    demo.wait_for("Request log")
    demo.type("q")
    deadline = time.monotonic() + 10
    status_file: Path = demo.status_file  # type: ignore[attr-defined]
    while time.monotonic() < deadline and not status_file.exists():
        time.sleep(0.1)
    assert status_file.read_text().strip() == "0"
