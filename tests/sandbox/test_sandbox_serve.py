"""Serving over a real socket: `start_background`, the `reset` fault under uvicorn, and
`labdeck sandbox serve` (prints URL and tokens, loopback by default, stops cleanly on Ctrl+C)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from email.utils import parsedate_to_datetime
from pathlib import Path

import httpx
import pytest

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import run_sandbox_command, start_background

SRC = Path(__file__).resolve().parents[2] / "src"


def test_start_background_serves_and_stops() -> None:
    running = start_background(SandboxOptions(scale="tiny"))
    try:
        assert running.base_url.startswith("http://127.0.0.1:")
        response = httpx.get(f"{running.base_url}/api/v4/projects", params={"per_page": 2})
        assert response.status_code == 200
        assert response.headers["link"].startswith(f"<{running.base_url}/api/v4/projects?")
        # one `Date`, the sandbox's clock's (uvicorn's wall-time header is off): moved with the clock
        moved = httpx.post(f"{running.base_url}/-/sandbox/clock", params={"advance": str(10 * 86_400)},
                           headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})
        assert moved.status_code == 200 and len(moved.headers.get_list("date")) == 1
        told = parsedate_to_datetime(moved.headers["date"]).timestamp()
        assert abs(told - (time.time() + 10 * 86_400)) < 5
    finally:
        running.stop()
    assert not running.thread.is_alive()
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"{running.base_url}/api/v4/projects", timeout=2)


def test_reset_fault_is_a_connection_error_on_a_real_socket() -> None:
    with start_background(SandboxOptions(scale="tiny", faults="reset=1")) as running:
        with pytest.raises(httpx.TransportError):
            httpx.get(f"{running.base_url}/api/v4/version", headers={"PRIVATE-TOKEN": "glpat-sandbox-root"})


def test_bad_options_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["serve", "--faults", "teapot=1"], ["serve", "--latency", "soon"],
                 ["serve", "--scale", "xl"], ["serve", "--edition", "ultimate"],
                 ["serve", "--gitlab-version", "latest"], []):
        with pytest.raises(SystemExit) as caught:
            run_sandbox_command(argv)
        assert caught.value.code == 2


def test_serve_command_prints_url_and_tokens_and_stops_on_ctrl_c() -> None:
    env = {**os.environ, "PYTHONPATH": f"{SRC}{os.pathsep}{os.environ.get('PYTHONPATH', '')}"}
    process = subprocess.Popen(
        # ctrl+c as a terminal delivers it: a run started in the background by a non-interactive shell
        # (`pytest ... &`, nohup) has SIGINT ignored, and the child would inherit that and never stop
        [sys.executable, "-c", "import signal, sys; "
         "signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from labdeck.sandbox.serve import run_sandbox_command; "
         "sys.exit(run_sandbox_command(sys.argv[1:]))", "serve", "--port", "0", "--scale", "tiny"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    try:
        assert process.stdout is not None
        lines = [process.stdout.readline() for _ in range(6)]
        text = "".join(lines)
        assert "listening on http://127.0.0.1:" in text
        assert "glpat-sandbox-root" in text and "glpat-sandbox-alice" in text
        url = text.split("listening on ")[1].split()[0]
        assert httpx.get(f"{url}/api/v4/groups").status_code == 200
        process.send_signal(signal.SIGINT)
        deadline = time.monotonic() + 30  # a condition: it stops in about a second, later on a busy machine
        while process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None:  # say what it was doing: its output after the lines read
            process.kill()
            rest, _ = process.communicate(timeout=30)
            raise AssertionError(f"still serving 30 s after ctrl+c; its output since:\n{rest}")
        assert process.returncode == 0
    finally:
        if process.poll() is None:
            process.kill()
        process.wait()
