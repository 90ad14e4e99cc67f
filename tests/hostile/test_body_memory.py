"""The memory a hostile body can take is bounded by `max_body` (issue 13 item 7): a 50 MB list and a gzip
bomb inflating to 50 MB, streamed over a real loopback socket, through the client and through `labdeck api`,
with a small `max_body` (2 MiB) so the test is fast. The peak of traced Python memory (`tracemalloc`, every
thread: the loopback server too) while the request runs must stay far below the body's size; a control run
with the cap lifted shows the same measure does see a body that is read whole (so the bound can fail).

The fake instance streams one preallocated chunk again and again, so the server itself allocates nearly
nothing while it sends 50 MB.
"""

from __future__ import annotations

import gc
import tracemalloc
import zlib
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from hostile_server import hostile_settings, start

import labdeck.cli.api as api_cli
from labdeck.api.client import ApiClient
from labdeck.api.errors import MalformedResponse

pytestmark = pytest.mark.timeout(120)
MIB = 1024 * 1024
BODY = 50 * MIB  # what the server sends (after decompression for the bomb)
CAP = 2 * MIB  # the test's max_body
BOUND = 8 * MIB  # the peak allowed: a sixth of the body, four times the cap
CHUNK = 256 * 1024
LIST_CHUNK = (b'{"id": 1, "name": "' + b"x" * (CHUNK - 40) + b'"},').ljust(CHUNK, b" ")


def _gzip_bomb() -> list[bytes]:
    """A gzip stream of BODY bytes of a JSON list, as a few compressed pieces (about 50 KB in all)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    filler = b"0," * (CHUNK // 2)
    pieces = [packer.compress(b"[")]
    pieces += [packer.compress(filler) for _ in range(BODY // CHUNK)]
    pieces.append(packer.compress(b"0]") + packer.flush())
    return [p for p in pieces if p]


BOMB = _gzip_bomb()
# The worst case: the whole bomb in one piece, read from the socket at once (httpx alone inflated all of
# it in one step: 129 MiB traced with a 2 MiB cap, before `api.body` inflated bodies itself).
ONE_PIECE = [b"".join(BOMB)]


class Streaming:
    """An ASGI app answering every request with a 200 JSON list of BODY bytes, chunked (plain or gzip)."""

    def __init__(self, gzip: bool, pieces: list[bytes] | None = None) -> None:
        self.gzip = gzip
        self.requests = 0
        self.pieces = pieces

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        self.requests += 1
        headers = [(b"content-type", b"application/json")]
        if self.gzip:
            headers.append((b"content-encoding", b"gzip"))
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        plain = [b"["] + [LIST_CHUNK] * (BODY // CHUNK) + [b'{"id": 2}]']
        pieces = (self.pieces or BOMB) if self.gzip else plain
        for piece in pieces:
            await send({"type": "http.response.body", "body": piece, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


def peak_while(run: Callable[[], Any]) -> tuple[Any, int]:
    """Run `run()` with tracemalloc on; its result and the peak of traced memory (bytes) above the start."""
    gc.collect()
    tracemalloc.start()
    try:
        base, _ = tracemalloc.get_traced_memory()
        tracemalloc.reset_peak()
        result = run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return result, peak - base


async def _client_get(base: str, max_body: int) -> Any:
    async with ApiClient(hostile_settings(url=base, max_body=max_body)) as client:
        try:
            return await client.get_json("/projects")
        except MalformedResponse as error:
            return error


def _peak_of(coroutine: Callable[[], Awaitable[Any]]) -> tuple[Any, int]:
    import asyncio

    return peak_while(lambda: asyncio.run(coroutine()))


@pytest.mark.parametrize(("gzip", "pieces"), [(False, None), (True, None), (True, ONE_PIECE)],
                         ids=["50MB-list", "gzip-bomb", "gzip-bomb-in-one-piece"])
def test_the_client_reads_at_most_max_body(gzip: bool, pieces: list[bytes] | None) -> None:
    app = Streaming(gzip, pieces)
    with start(app) as base:
        result, peak = _peak_of(lambda: _client_get(base, CAP))
    assert isinstance(result, MalformedResponse) and "max_body" in str(result), result
    assert app.requests == 1  # a body over the cap is not retried
    print(f"peak {peak / MIB:.1f} MiB for a {BODY // MIB} MB body (gzip={gzip})")
    assert peak < BOUND, f"peak {peak / MIB:.1f} MiB for a {BODY // MIB} MB body"


@pytest.mark.parametrize(("gzip", "pieces"), [(False, None), (True, None), (True, ONE_PIECE)],
                         ids=["50MB-list", "gzip-bomb", "gzip-bomb-in-one-piece"])
def test_labdeck_api_reads_at_most_max_body(gzip: bool, pieces: list[bytes] | None,
                                            monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    app = Streaming(gzip, pieces)
    with start(app) as base:
        monkeypatch.setattr(api_cli, "connection_settings",
                            lambda args: hostile_settings(url=base, max_body=CAP))
        status, peak = peak_while(lambda: api_cli.run_api_command(["projects"]))
    out, err = capsys.readouterr()
    assert status == 1 and out == "" and err.count("\n") == 1 and "max_body" in err, err
    print(f"peak {peak / MIB:.1f} MiB for a {BODY // MIB} MB body (gzip={gzip})")
    assert peak < BOUND, f"peak {peak / MIB:.1f} MiB for a {BODY // MIB} MB body"


def test_the_measure_sees_a_body_read_whole() -> None:
    """Control: with the cap above the body, the same measure exceeds the bound (the test can fail)."""
    app = Streaming(gzip=True)
    with start(app) as base:
        result, peak = _peak_of(lambda: _client_get(base, 4 * BODY))
    assert isinstance(result, list) and len(result) > BODY // 4
    del result
    print(f"control: peak {peak / MIB:.1f} MiB with the cap lifted")
    assert peak > BOUND


class Encoded:
    """An ASGI app answering every request with `body` under the content encoding `encoding`."""

    def __init__(self, body: bytes, encoding: str) -> None:
        self.body, self.encoding = body, encoding

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        headers = [(b"content-type", b"application/json"), (b"content-encoding", self.encoding.encode())]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": self.body, "more_body": False})


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "x-gzip"])
async def test_encoded_bodies_under_the_cap_are_read(encoding: str) -> None:
    data = b'[{"id": 1, "name": "' + b"p" * 300_000 + b'"}]'
    packed = zlib.compress(data) if encoding == "deflate" else _gzip(data)
    with start(Encoded(packed, encoding)) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            assert (await client.get_json("/projects"))[0]["name"] == "p" * 300_000


async def test_a_body_that_is_not_gzip_is_one_clear_error() -> None:
    from labdeck.api.errors import NetworkError

    with start(Encoded(b"this is not gzip at all", "gzip")) as base:
        async with ApiClient(hostile_settings(url=base)) as client:
            with pytest.raises(NetworkError, match="could not be decompressed"):
                await client.get_json("/projects")


def _gzip(data: bytes) -> bytes:
    packer = zlib.compressobj(6, zlib.DEFLATED, 31)
    return packer.compress(data) + packer.flush()
