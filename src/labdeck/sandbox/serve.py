"""Serving the sandbox over real HTTP: `labdeck sandbox serve ...` (`run_sandbox_command`) and
`start_background()` (uvicorn in a daemon thread) for `--demo` and tests that need a socket.

The socket is bound and listening before anything heavy happens, so its URL is known at once and early
requests simply wait in the listen backlog. `start_process()` (used by `--demo`) hands that socket to a
child `labdeck sandbox serve --fd N`, which seeds and serves on the other core: the TUI paints meanwhile
and never shares its interpreter (or its GIL) with the sandbox.
"""

from __future__ import annotations

import argparse
import logging
import os
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from labdeck.sandbox.options import (
    DEFAULT_GITLAB_VERSION,
    EDITIONS,
    SCALES,
    SandboxOptions,
    parse_faults,
    parse_gitlab_version,
    parse_latency_ms,
)
from labdeck.sandbox.seed.people import ALICE_TOKEN, JOB_TOKEN, NOSUDO_TOKEN, ROOT_TOKEN

if TYPE_CHECKING:
    import uvicorn

_BACKLOG = 512


class _QuietResets(logging.Filter):
    """Drop uvicorn's traceback for the deliberate `reset` fault."""

    def filter(self, record: logging.LogRecord) -> bool:
        from labdeck.sandbox.faults import SandboxConnectionReset

        return not (record.exc_info and isinstance(record.exc_info[1], SandboxConnectionReset))


_QUIET_RESETS = _QuietResets()


def _server(options: SandboxOptions) -> uvicorn.Server:
    """Seed the sandbox and wrap it in a uvicorn server (the heavy imports happen here)."""
    import uvicorn

    from labdeck.sandbox.app import create_app

    logging.getLogger("uvicorn.error").addFilter(_QUIET_RESETS)  # adding the same filter twice is a no-op
    # `date_header=False`: the app dates its answers by the sandbox's clock (`app.InstanceDate`);
    # `timeout_graceful_shutdown`: Ctrl+C stops it within seconds even if a client keeps a connection open
    config = uvicorn.Config(create_app(options), log_level="warning", lifespan="off", access_log=False,
                            date_header=False, timeout_graceful_shutdown=2)
    return uvicorn.Server(config)


@dataclass
class RunningSandbox:
    """A sandbox served by uvicorn in a daemon thread (`server` is set once it is seeded)."""

    base_url: str
    thread: threading.Thread | None = None
    server: uvicorn.Server | None = None
    failed: BaseException | None = None
    _stop: threading.Event = field(default_factory=threading.Event, repr=False)

    @property
    def ready(self) -> bool:
        return self.server is not None and self.server.started

    def stop(self, timeout: float = 5.0) -> None:
        self._stop.set()
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout)

    def _run(self, options: SandboxOptions, sock: socket.socket) -> None:
        try:
            server = _server(options)
        except BaseException as exc:  # reported by start_background; the thread just ends
            self.failed = exc
            sock.close()
            return
        self.server = server
        if self._stop.is_set():
            sock.close()
            return
        server.run(sockets=[sock])

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
    sock.listen(_BACKLOG)  # connections queue from now on, even before uvicorn serves
    sock.set_inheritable(True)
    return sock


def _url(host: str, port: int) -> str:
    return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"


def start_background(options: SandboxOptions | None = None, host: str = "127.0.0.1", port: int = 0,
                     timeout: float = 30.0) -> RunningSandbox:
    """Seed and serve a sandbox on `host:port` (0: any free port) from a daemon thread; return once it
    serves (for tests that need a real socket; `--demo` uses `start_process`)."""
    options = options or SandboxOptions()
    sock = _bind(host, port)
    running = RunningSandbox(_url(host, sock.getsockname()[1]))
    running.thread = threading.Thread(target=running._run, args=(options, sock), name="labdeck-sandbox",
                                      daemon=True)
    running.thread.start()
    deadline = time.monotonic() + timeout
    while not running.ready:
        if not running.thread.is_alive() or time.monotonic() > deadline:
            running.stop(0)
            raise RuntimeError("the sandbox did not start") from running.failed
        time.sleep(0.01)
    return running


@dataclass
class SandboxProcess:
    """A sandbox served by a child process on a socket the parent bound (see `start_process`)."""

    base_url: str
    process: subprocess.Popen[bytes]

    def stop(self, timeout: float = 5.0) -> None:
        if self.process.poll() is None:
            if self.process.stdin is not None:
                self.process.stdin.close()  # the child stops when its stdin closes
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout)


def start_process(options: SandboxOptions | None = None, host: str = "127.0.0.1",
                  port: int = 0) -> SandboxProcess:
    """Serve a sandbox from a child process; returns at once with its URL (the socket already listens).

    The child exits when the parent closes its stdin, or dies (its stdin then reaches end of file).
    """
    options = options or SandboxOptions()
    sock = _bind(host, port)
    base_url = _url(host, sock.getsockname()[1])
    command = [sys.executable, "-m", "labdeck", "sandbox", "serve", "--fd", str(sock.fileno()),
               "--host", host, "--seed", str(options.seed), "--scale", options.scale,
               "--latency", f"{options.latency_ms}ms", "--faults", options.faults,
               "--fault-seed", str(options.fault_seed), "--async-delay", str(options.async_delay),
               "--edition", options.edition, "--gitlab-version", options.gitlab_version,
               *(() if options.graphql else ("--no-graphql",)),
               *(() if options.registry_sizes else ("--no-registry-sizes",)),
               "--until-stdin-closes", "--quiet"]
    try:
        process = subprocess.Popen(command, pass_fds=(sock.fileno(),), stdin=subprocess.PIPE,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   start_new_session=True)
    finally:
        sock.close()  # the child holds its own copy
    return SandboxProcess(base_url, process)


def _inherited(fd: int) -> socket.socket:
    sock = socket.socket(fileno=fd)
    sock.listen(_BACKLOG)
    return sock


def _watch_stdin(server: uvicorn.Server) -> None:
    """Stop the server when stdin reaches end of file (the parent closed it or died)."""
    try:
        while os.read(sys.stdin.fileno(), 4096):
            pass
    except OSError:
        pass
    server.should_exit = True


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="labdeck sandbox", description="The embedded GitLab-compatible "
                                     "instance.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the sandbox over HTTP")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: loopback only)")
    serve.add_argument("--port", type=int, default=8080, help="port (0: any free port; default 8080)")
    serve.add_argument("--seed", type=int, default=1,
                       help="seed of the generated data: the same seed gives the same instance (default: 1)")
    serve.add_argument("--scale", choices=SCALES, default="demo")
    serve.add_argument("--latency", default="0ms", help="added to every request, e.g. 50ms")
    serve.add_argument("--faults", default="", help="e.g. 429=0.05,503=0.05,reset=0.02,badjson=0.01")
    serve.add_argument("--fault-seed", type=int, default=0,
                       help="seed of the --faults draws: the same seed fails the same requests (default: 0)")
    serve.add_argument("--async-delay", type=float, default=1.0, help="seconds before async operations end")
    serve.add_argument("--edition", choices=EDITIONS, default="ee",
                       help="ce answers premium endpoints as Community Edition does (default: ee)")
    serve.add_argument("--gitlab-version", default=DEFAULT_GITLAB_VERSION, metavar="X.Y",
                       help="GitLab version played: later endpoints answer 404 "
                            f"(default: {DEFAULT_GITLAB_VERSION})")
    serve.add_argument("--no-graphql", dest="graphql", action="store_false",
                       help="no GraphQL endpoint (/api/graphql answers 404), as an instance without it")
    serve.add_argument("--no-registry-sizes", dest="registry_sizes", action="store_false",
                       help="a registry without a metadata database: a repository's size=true answers null")
    serve.add_argument("--fd", type=int, help=argparse.SUPPRESS)  # serve on an inherited listening socket
    serve.add_argument("--until-stdin-closes", action="store_true", help=argparse.SUPPRESS)
    serve.add_argument("--quiet", action="store_true", help=argparse.SUPPRESS)
    return parser


def run_sandbox_command(argv: list[str]) -> int:
    """`labdeck sandbox serve [...]`: print the base URL and tokens, serve until Ctrl+C; exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        latency = parse_latency_ms(args.latency)
        parse_faults(args.faults)
        parse_gitlab_version(args.gitlab_version)
    except ValueError as exc:
        parser.error(str(exc))
    options = SandboxOptions(seed=args.seed, scale=args.scale, latency_ms=latency, faults=args.faults,
                             fault_seed=args.fault_seed, async_delay=args.async_delay, edition=args.edition,
                             gitlab_version=args.gitlab_version, graphql=args.graphql,
                             registry_sizes=args.registry_sizes)
    started = time.monotonic()
    try:
        sock = _inherited(args.fd) if args.fd is not None else _bind(args.host, args.port)
    except OSError as exc:
        print(f"labdeck sandbox: cannot listen on {args.host}:{args.port}: {exc.strerror}", file=sys.stderr)
        return 1
    base_url = _url(args.host, sock.getsockname()[1])
    server = _server(options)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    if args.until_stdin_closes:
        threading.Thread(target=_watch_stdin, args=(server,), daemon=True).start()
    while not server.started and thread.is_alive():
        time.sleep(0.01)
    if not server.started:
        return 1
    if args.quiet:
        thread.join()
        return 0
    print(f"labdeck sandbox ({args.scale}, seed {args.seed}, GitLab {options.gitlab_version} "
          f"{args.edition.upper()}) listening on {base_url} "
          f"(ready in {time.monotonic() - started:.2f} s)")
    print(f"  API:   {base_url}/api/v4" + (f"   GraphQL: {base_url}/api/graphql" if args.graphql else ""))
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
