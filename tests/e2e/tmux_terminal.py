"""What the end-to-end tests drive labdeck with: a `Terminal` (one tmux session on its own tmux server,
typed at with send-keys and read with capture-pane) and readers of what labdeck draws (the detail pane,
the rows footer). Every gesture waits for text on screen before the next key, so tests hold on a busy
machine. The `demo` fixture (conftest.py) runs `labdeck --demo` in one; `labdeck_in_tmux` runs it against
a sandbox server with latency, and `busy_machine` keeps a core busy beside it.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

TMUX = shutil.which("tmux")
needs_tmux = pytest.mark.skipif(TMUX is None, reason="tmux not installed")
DETAIL_EDGE = "▏"  # the left border of a ResourceView's detail pane, as capture-pane shows it
OPEN_KEY = "⏎ Open"  # in the key footer while a list's table has the focus
# How long a gesture may take to show on screen. Generous: a condition wait returns as soon as the text is
# there, and a machine at a load of 4 can take many seconds to start labdeck or draw a big list.
TIMEOUT = 60.0
FOOTER_ROWS = re.compile(r"^ (?:([\d,]+) of )?([\d,]+) rows", re.MULTILINE)


class Terminal:
    """One tmux session running a command."""

    def __init__(self, name: str, status_file: Path | None = None) -> None:
        self.name = name  # the session's name, and the name of its own tmux server (`tmux -L`)
        self.status_file = status_file  # where the command's exit status is written when it ends

    def tmux(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        return subprocess.run(["tmux", "-L", self.name, *args], capture_output=True, text=True, check=check)

    def start(self, command: str, env: dict[str, str], width: int = 140, height: int = 40) -> None:
        """Start the session on a private server; `env` is set with `-e` as well, since a server that
        is already running would otherwise give the command its own environment."""
        pairs = [arg for key, value in env.items() for arg in ("-e", f"{key}={value}")]
        # COLUMNS and LINES (pytest-xdist workers export them) would override the pane's real size.
        base = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
        subprocess.run(["tmux", "-L", self.name, "new-session", "-d", "-s", self.name, "-x", str(width),
                        "-y", str(height), *pairs, f"unset COLUMNS LINES; {command}"], check=True,
                       env={**base, **env})

    def close(self) -> None:
        self.tmux("kill-server", check=False)

    def keys(self, *keys: str) -> None:
        """Send tmux key names (`Enter`, `Escape`, `C-u`)."""
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        """Type `text` literally."""
        self.tmux("send-keys", "-t", self.name, "-l", text)

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", self.name, check=False).stdout

    def wait_until(self, check: Callable[[str], object], what: str, timeout: float = TIMEOUT) -> str:
        """Poll the screen until `check(screen)` is truthy; return that screen."""
        deadline = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < deadline:
            screen = self.screen()
            if check(screen):
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what} never happened on screen:\n{screen}")

    def wait_steady(self, read: Callable[[str], object], what: str, settle: float = 0.4,
                    timeout: float = TIMEOUT) -> str:
        """Wait until `read(screen)` is truthy and has not changed for `settle` seconds (a count that
        is drawn in steps); return that screen."""
        deadline = time.monotonic() + timeout
        last, since, screen = None, time.monotonic(), ""
        while time.monotonic() < deadline:
            screen = self.screen()
            value = read(screen)
            if not value or value != last:
                last, since = value, time.monotonic()
            elif time.monotonic() - since >= settle:
                return screen
            time.sleep(0.1)
        raise AssertionError(f"{what} never settled on screen:\n{screen}")

    def wait_for(self, text: str, timeout: float = TIMEOUT) -> str:
        return self.wait_until(lambda screen: text in screen, f"{text!r} appearing", timeout)

    def wait_gone(self, text: str, timeout: float = TIMEOUT) -> str:
        return self.wait_until(lambda screen: text not in screen, f"{text!r} leaving", timeout)

    def wait_match(self, pattern: str, timeout: float = TIMEOUT) -> re.Match[str]:
        """Wait for a regular expression (multi-line) to match the screen; return the match."""
        regex = re.compile(pattern, re.MULTILINE)
        screen = self.wait_until(regex.search, f"/{pattern}/ matching", timeout)
        match = regex.search(screen)
        assert match is not None
        return match

    def exit_status(self, timeout: float = TIMEOUT) -> str:
        """Wait for the command to end (its status file written and complete); return the status."""
        assert self.status_file is not None
        status = self.status_file
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if status.exists() and status.read_text().endswith("\n"):
                return status.read_text().strip()
            time.sleep(0.1)
        raise AssertionError(f"the command never ended:\n{self.screen()}")

    def alive(self) -> bool:
        return self.tmux("has-session", "-t", self.name, check=False).returncode == 0

    # -- labdeck gestures -------------------------------------------------------------------------------
    def ready(self) -> None:
        """Wait for the home screen and the signed-in user in the status bar (GET /user answered). Its
        header, not an area's name: below 100 columns the needs-attention panel comes under the areas once
        the session is open, and the last areas scroll out of sight (a run that missed the moment before
        failed waiting for "Request log")."""
        self.wait_for("Home —")
        self.wait_for("root")

    def jump(self, area: str) -> None:
        """`:` then a view name and enter, the way a person opens an area."""
        self.type(":")
        self.wait_for("view name")  # the jump prompt is up before we type into it
        self.type(area)
        self.keys("Enter")
        self.wait_gone("view name")

    def filter_rows(self, text: str) -> str:
        """`/` then `text` in a list's filter box; returns the screen once the footer shows the filter.
        The table must have the focus first (its `⏎ Open` key in the footer), and the box after `/`."""
        self.wait_for(OPEN_KEY)
        self.type("/")
        self.wait_gone(OPEN_KEY)
        self.type(text)
        return self.wait_for(f"filter “{text}”")


def detail_text(screen: str) -> str:
    """The detail pane's text (right of its border), lines joined with single spaces so that a sentence
    the pane wrapped reads whole again."""
    parts = [line.split(DETAIL_EDGE, 1)[1] for line in screen.splitlines() if DETAIL_EDGE in line]
    return " ".join(" ".join(parts).split())


def footer_rows(screen: str) -> tuple[int, int] | None:
    """(shown, total) from a ResourceView footer (`615 rows`, `1 of 60 rows · filter “x”`); None before
    the footer is drawn."""
    match = FOOTER_ROWS.search(screen)
    if match is None:
        return None
    total = int(match.group(2).replace(",", ""))
    shown = int(match.group(1).replace(",", "")) if match.group(1) else total
    return shown, total


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextmanager
def labdeck_in_tmux(tmp_path: Path, latency_ms: int = 0) -> Iterator[Terminal]:
    """labdeck in a 140x40 tmux session with its own config, state and cache: `--demo` (its sandbox in the
    process) at no latency, else against `labdeck sandbox serve --latency` started (and stopped) here."""
    env = {"XDG_STATE_HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    server: subprocess.Popen[bytes] | None = None
    if latency_ms:
        port = _free_port()
        server = subprocess.Popen([sys.executable, "-m", "labdeck", "sandbox", "serve", "--port", str(port),
                                   "--latency", f"{latency_ms}ms"], stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL)
        config = tmp_path / "slow.toml"
        config.write_text(f'default_instance = "slow"\n[instances.slow]\nurl = "http://127.0.0.1:{port}"\n'
                          'token = "glpat-sandbox-root"\n')
        config.chmod(0o600)
        command = f"{sys.executable} -m labdeck; sleep 30"
    else:
        config = tmp_path / "config.toml"
        command = f"{sys.executable} -m labdeck --demo; sleep 30"
    term = Terminal(f"labdeck-e2e-{uuid.uuid4().hex[:8]}")
    term.start(command, {"LABDECK_CONFIG": str(config), **env})
    try:
        yield term
    finally:
        term.close()
        if server is not None:
            server.terminate()
            server.wait(timeout=10)


@contextmanager
def busy_machine() -> Iterator[None]:
    """A busy loop in a process of its own beside labdeck (a core kept busy), stopped on leaving."""
    loop = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield
    finally:
        loop.kill()
        loop.wait(timeout=10)
