"""Serving the sandbox over real HTTP: `labdeck sandbox serve ...` (`run_sandbox_command`) and
`start_background()` (uvicorn in a daemon thread) for `--demo` and tests that need a socket."""

from __future__ import annotations

import argparse
import logging
import socket
import sys
import threading
import time
from dataclasses import dataclass

import uvicorn

from labdeck.sandbox.app import create_app
from labdeck.sandbox.faults import SandboxConnectionReset
from labdeck.sandbox.options import SCALES, SandboxOptions, parse_faults, parse_latency_ms
from labdeck.sandbox.seed.people import ALICE_TOKEN, JOB_TOKEN, NOSUDO_TOKEN, ROOT_TOKEN


class _QuietResets(logging.Filter):
    """Drop uvicorn's traceback for the deliberate `reset` fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (record.exc_info and isinstance(record.exc_info[1], SandboxConnectionReset))


logging.getLogger("uvicorn.error").addFilter(_QuietResets())


@dataclass
class RunningSandbox:
    """A sandbox served by uvicorn in a daemon thread."""

    base_url: str
    server: uvicorn.Server
    thread: threading.Thread

    def stop(self, timeout: float = 5.0) -> None:
        self.server.should_exit = True
        self.thread.join(timeout)

    def __enter__(self) -> RunningSandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto must be IPPROTO_TCP: asyncio only sets TCP_NODELAY on accepted sockets of such a listener, and
    # without it every keep-alive response waits ~40 ms for a delayed ACK (headers and body are two writes).
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def start_background(options: SandboxOptions | None = None, host: str = "127.0.0.1", port: int = 0,
                     timeout: float = 30.0) -> RunningSandbox:
    """Seed and serve a sandbox on `host:port` (0: any free port); return once it accepts connections."""
    options = options or SandboxOptions()
    sock = _bind(host, port)
    real_port = sock.getsockname()[1]
    base_url = _url(host, real_port)
    app = create_app(options)
    config = uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, name="labdeck-sandbox",
                              daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive() or time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError("the sandbox did not start")
        time.sleep(0.01)
    return RunningSandbox(base_url, server, thread)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="labdeck sandbox", description="The embedded GitLab-compatible "
                                     "instance.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the sandbox over HTTP")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=8080, help="port (0: any free port; default 8080)")
    serve.add_argument("--seed", type=int, default=1)
    serve.add_argument("--scale", choices=SCALES, default="demo")
    serve.add_argument("--latency", default="0ms", help="added to every request, e.g. 50ms")
    serve.add_argument("--faults", default="", help="e.g. 429=0.05,503=0.05,reset=0.02,badjson=0.01")
    serve.add_argument("--fault-seed", type=int, default=0)
    serve.add_argument("--async-delay", type=float, default=1.0, help="seconds before async operations end")
    return parser


def run_sandbox_command(argv: list[str]) -> int:
    """`labdeck sandbox serve [...]`: print the base URL and tokens, serve until Ctrl+C; exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        latency = parse_latency_ms(args.latency)
        parse_faults(args.faults)
    except ValueError as exc:
        parser.error(str(exc))
    options = SandboxOptions(seed=args.seed, scale=args.scale, latency_ms=latency, faults=args.faults,
                             fault_seed=args.fault_seed, async_delay=args.async_delay)
    started = time.monotonic()
    try:
        sock = _bind(args.host, args.port)
    except OSError as exc:
        print(f"labdeck sandbox: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    app = create_app(options)
    base_url = _url(args.host, sock.getsockname()[1])
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off", access_log=False))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    if not server.started:
        return 1
    print(f"labdeck sandbox ({args.scale}, seed {args.seed}) listening on {base_url} "
          f"(ready in {time.monotonic() - started:.2f} s)")
    print(f"  API:   {base_url}/api/v4")
    print(f"  root:  {ROOT_TOKEN}   (administrator, scopes api+sudo)")
    print(f"  alice: {ALICE_TOKEN}   (regular user)")
    print(f"  admin without sudo scope: {NOSUDO_TOKEN}   job token: {JOB_TOKEN}")
    print("Press Ctrl+C to stop.", flush=True)
    try:
        while thread.is_alive():
            thread.join(0.5)
    except KeyboardInterrupt:
        print("\nstopping", flush=True)
    server.should_exit = True
    thread.join(10)
    return 0
