"""`start_process`: the sandbox served by a child process on a socket the parent bound (used by --demo)."""

from __future__ import annotations

import time

import httpx

from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.serve import start_process


def test_url_at_once_requests_wait_for_the_child_and_stop_ends_it() -> None:
    started = time.monotonic()
    sandbox = start_process(SandboxOptions(scale="tiny"))
    returned_after = time.monotonic() - started
    try:
        assert sandbox.base_url.startswith("http://127.0.0.1:")
        assert returned_after < 0.5  # the child seeds while we go on
        # A request sent before the child serves waits in the listen backlog instead of being refused.
        response = httpx.get(f"{sandbox.base_url}/api/v4/user",
                             headers={"PRIVATE-TOKEN": "glpat-sandbox-root"}, timeout=30)
        assert response.status_code == 200 and response.json()["username"] == "root"
        assert sandbox.process.poll() is None
    finally:
        sandbox.stop()
    assert sandbox.process.returncode is not None
    try:
        httpx.get(f"{sandbox.base_url}/api/v4/version", timeout=2)
        raise AssertionError("the sandbox still answers after stop()")
    except httpx.TransportError:
        pass


def test_options_reach_the_child() -> None:
    sandbox = start_process(SandboxOptions(scale="tiny", latency_ms=300))
    try:
        httpx.get(f"{sandbox.base_url}/api/v4/version", timeout=30)  # wait until it serves
        began = time.monotonic()
        httpx.get(f"{sandbox.base_url}/api/v4/version", timeout=30)
        assert time.monotonic() - began >= 0.3
    finally:
        sandbox.stop()


def test_a_registry_without_sizes_reaches_the_child() -> None:
    """`registry_sizes=False` (`--no-registry-sizes`): the child's repositories answer `"size": null`."""
    sandbox = start_process(SandboxOptions(scale="tiny", registry_sizes=False))
    try:
        headers = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
        repos = httpx.get(f"{sandbox.base_url}/api/v4/projects/acme%2Fplatform%2Fapi-gateway/registry/"
                          "repositories", headers=headers, timeout=30).json()
        single = httpx.get(f"{sandbox.base_url}/api/v4/registry/repositories/{repos[0]['id']}",
                           params={"size": "true"}, headers=headers, timeout=30).json()
        assert "size" in single and single["size"] is None
    finally:
        sandbox.stop()
