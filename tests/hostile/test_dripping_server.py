"""A server that drips one byte at a time, over a real loopback socket (issue 22 item 6): httpx's read timeout
is per read, so before the fix each request outlived its deadline in the background and kept its
concurrency slot; after 16 of them every request of the session failed. The overall deadline now bounds the
whole exchange, headers and body, abandoned or not, and the slot and the connection come back with it."""

from __future__ import annotations

import asyncio
import socket
import socketserver
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from pydantic import SecretStr

from labdeck.api.client import ApiClient
from labdeck.api.errors import DeadlineExceeded
from labdeck.api.settings import ConnectionSettings, Timeouts

DRIP = 0.1  # seconds between two bytes: each read is well inside the read timeout
DEADLINE = 0.3
MARGIN = 1.0  # generous: the machine is shared
VERSION = b'{"version": "17.6.0"}'


class Dripper(socketserver.BaseRequestHandler):
    """`/drip-body`: headers at once, then one body byte per DRIP; `/drip-head`: the status line and headers
    themselves one byte per DRIP; anything else: a normal JSON answer. Dripping stops when the client goes."""

    server: DripServer

    def handle(self) -> None:
        conn: socket.socket = self.request
        head = b""
        while b"\r\n\r\n" not in head:
            data = conn.recv(4096)
            if not data:
                return
            head += data
        target = head.split(b" ", 2)[1]
        if not target.startswith(b"/api/v4/drip"):
            conn.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n"
                         b"content-length: %d\r\n\r\n%s" % (len(VERSION), VERSION))
            return
        headers = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n"
        with self.server.count_lock:
            self.server.open_drips += 1
        try:
            if target.startswith(b"/api/v4/drip-body"):
                conn.sendall(headers)
                self._drip(conn, b"[" + b" " * 600)
            else:
                self._drip(conn, headers)
        except OSError:
            pass  # the client closed the connection: what the fix makes happen at the deadline
        finally:
            with self.server.count_lock:
                self.server.open_drips -= 1

    def _drip(self, conn: socket.socket, data: bytes) -> None:
        for byte in data:  # 600 bytes: a minute of dripping, unless the client goes away
            conn.sendall(bytes([byte]))
            time.sleep(DRIP)


class DripServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), Dripper)
        self.count_lock = threading.Lock()
        self.open_drips = 0


@pytest.fixture
def dripping() -> Iterator[DripServer]:
    server = DripServer()
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


async def wait_until(condition: Callable[[], bool], within: float = 5.0) -> bool:
    """Poll `condition()` until it holds (a condition wait with an upper bound, not a fixed sleep)."""
    ends = time.monotonic() + within
    while not condition():
        if time.monotonic() > ends:
            return False
        await asyncio.sleep(0.02)
    return True


async def timed_failure(client: ApiClient, path: str) -> float:
    started = time.monotonic()
    with pytest.raises(DeadlineExceeded):
        await client.get_json(path)
    return time.monotonic() - started


async def test_twenty_dripping_requests_end_at_their_deadline_and_free_their_slots(
        dripping: DripServer) -> None:
    url = f"http://127.0.0.1:{dripping.server_address[1]}"
    settings = ConnectionSettings(url, token=SecretStr("glpat-drip"), concurrency=8,
                                  timeouts=Timeouts(connect=2, read=2, pool=2, deadline=DEADLINE))
    async with ApiClient(settings) as client:
        durations: list[float] = []
        for batch in range(4):  # 20 dripping requests, 5 at a time: body drips, then header drips
            path = "/drip-body" if batch < 2 else "/drip-head"
            durations += await asyncio.gather(*(timed_failure(client, path) for _ in range(5)))
        assert len(durations) == 20
        assert max(durations) < DEADLINE + MARGIN, durations
        # the abandoned exchanges ended at their deadline: every slot is back, every connection closed
        assert await wait_until(lambda: not client._inflight), len(client._inflight)
        assert client._semaphore._value == 8
        assert await wait_until(lambda: dripping.open_drips == 0), dripping.open_drips
        # and a normal request still succeeds
        assert await client.get_json("/version") == {"version": "17.6.0"}
