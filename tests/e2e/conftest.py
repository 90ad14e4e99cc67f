"""The `demo` fixture of the end-to-end tests: `labdeck --demo` in a tmux `Terminal` (tmux_terminal.py)."""

from __future__ import annotations

import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tmux_terminal import Terminal


@pytest.fixture
def demo(tmp_path: Path) -> Iterator[Terminal]:
    """`labdeck --demo` in a 140x40 tmux session with its own config, state and cache."""
    name = f"labdeck-e2e-{uuid.uuid4().hex[:8]}"
    env = {"LABDECK_CONFIG": str(tmp_path / "config.toml"), "XDG_STATE_HOME": str(tmp_path),
           "XDG_CACHE_HOME": str(tmp_path)}  # TERM is tmux's own (tmux-256color)
    status = tmp_path / "exit-status"
    term = Terminal(name, status)
    term.start(f"{sys.executable} -m labdeck --demo; echo $? > {status}; sleep 30", env)
    try:
        yield term
    finally:
        term.close()
