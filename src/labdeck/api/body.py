"""Response bodies: read with a size cap (counted after decompression, so a gzip bomb stops at the cap),
decoded with orjson (nesting bounded: never a `RecursionError`), sanitised only when the bytes can hold a
control character, and decoded off the event loop when large, so the UI never freezes on a big answer."""

from __future__ import annotations

import asyncio
import json
import re
import zlib
from collections.abc import AsyncIterator, Callable
from typing import Any, Final, TypeVar

import httpx
import orjson

from labdeck.api.errors import MalformedResponse
from labdeck.domain.digits import parse_digits
from labdeck.domain.text import may_hold_control, sanitize_deep

MIB: Final = 1024 * 1024
DEFAULT_MAX_BODY: Final = 64 * MIB
# Bodies at least this large are decoded (and parsed) in a worker thread (`asyncio.to_thread`). Below it
# they are decoded on the loop: orjson reads a 400 KB page of projects in about 1 ms, a listing page parsed
# straight into models (`page_decoder`) costs about 1 ms per 300 KB, and handing every page of a fetch-all
# to a thread cost more CPU than either (issue 16: `--paginate` 1.47 -> 1.10-1.38 s of CPU).
OFF_LOOP: Final = 2 * MIB
T = TypeVar("T")
# What makes a body that orjson refuses "NaN or Infinity" rather than just "not JSON" (in the message).
_NON_FINITE = re.compile(rb"(?<![\w\"])-?(?:NaN|Infinity)(?![\w\"])")
# A number token of 20 digits or more: orjson reads an integer beyond 64 bits as a float (inexact), where
# msgspec (the listing decoder) and pydantic keep it exact. A body holding one is read again by the standard
# decoder, so every path reads the same integer (issue 27).
LONG_NUMBER = re.compile(rb"[:,\[]\s*-?\d{20,}\s*[,\]}]")


class BodyTooLarge(Exception):
    """Internal: the body passed the cap while it was read (the client turns it into `MalformedResponse`)."""

    def __init__(self, cap: int) -> None:
        super().__init__(cap)
        self.cap = cap


def too_large_message(cap: int) -> str:
    size = f"{cap / MIB:g} MiB" if cap >= MIB else f"{cap:,} bytes"
    return f"response larger than {size} (the max_body limit): not read"


async def read_capped(response: httpx.Response, cap: int) -> None:
    """Read a streamed response's body into `response.content`, decompressed, and raise `BodyTooLarge` as
    soon as it passes `cap` bytes (or when its `Content-Length` already says it will). Closes the stream."""
    try:
        declared = parse_digits(response.headers.get("content-length", "").strip())
        if declared is not None and declared > cap:
            raise BodyTooLarge(cap)
        chunks: list[bytes] = []
        size = 0
        async for chunk in _inflated(response):
            size += len(chunk)
            if size > cap:
                raise BodyTooLarge(cap)
            chunks.append(chunk)
        response._content = b"".join(chunks)  # what `Response.aread` sets (httpx has no public setter)
    finally:
        await response.aclose()
        # httpx's stream wrapper points back at the response: a cycle that keeps every body alive until
        # a full garbage collection (500 pages of 290 KB while a listing loads with the collector paused).
        response.stream = httpx.ByteStream(getattr(response, "_content", b""))


# zlib window bits per content encoding labdeck inflates itself (gzip header; zlib-wrapped deflate).
_WBITS: Final = {"gzip": zlib.MAX_WBITS | 16, "x-gzip": zlib.MAX_WBITS | 16, "deflate": zlib.MAX_WBITS}
INFLATE_STEP: Final = 64 * 1024


async def _inflated(response: httpx.Response) -> AsyncIterator[bytes]:
    """The body's decoded bytes, at most `INFLATE_STEP` at a time for gzip and deflate: httpx inflates each
    network read whole, and 64 KB of a gzip bomb is 64 MB, whatever the cap. Other encodings (and a
    response built in memory, already decoded): httpx's."""
    wbits = _WBITS.get(response.headers.get("content-encoding", "").strip().lower())
    if wbits is None or response.is_stream_consumed:  # a response built in memory is decoded already
        async for chunk in response.aiter_bytes():
            yield chunk
        return
    inflater = zlib.decompressobj(wbits)
    inflated = False  # any byte out yet (zlib's Decompress has no total_out)
    try:
        async for data in response.aiter_raw():
            while data:
                out = inflater.decompress(data, INFLATE_STEP)
                inflated = inflated or bool(out)
                yield out
                data = inflater.unconsumed_tail
        yield inflater.flush()
    except zlib.error as exc:
        if wbits == zlib.MAX_WBITS and not inflated:  # "deflate" sent raw (no zlib header)
            raise httpx.DecodingError("raw deflate bodies are not read", request=response.request) from None
        raise httpx.DecodingError(f"the body could not be decompressed: {exc}",
                                  request=response.request) from None


def decode_json(body: bytes, what: str) -> Any:
    """Decoded JSON of `body` (`None` when empty); `MalformedResponse` naming `what` for bad JSON or for
    nesting deeper than orjson's 1,024 levels (no recursion: a hostile body cannot exhaust the stack)."""
    if not body.strip():
        return None
    try:
        value = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        if "depth" in str(exc) or "recursion" in str(exc).lower():
            raise MalformedResponse(f"the server sent JSON nested too deeply ({what})") from None
        if _NON_FINITE.search(body):
            raise MalformedResponse(f"the server sent NaN or Infinity, not JSON ({what})") from None
        raise MalformedResponse(f"the server sent a body that is not JSON ({what})") from None
    if LONG_NUMBER.search(body):
        try:
            return json.loads(body)  # orjson bounded the nesting to 1,024; the recursion limit may be lower
        except RecursionError:
            raise MalformedResponse(f"the server sent JSON nested too deeply ({what})") from None
    return value


def exact_loads(raw: bytes) -> Any:
    """JSON with integers beyond 64 bits kept exact: orjson, or the standard decoder when `raw` holds such
    a number (orjson would give a float). The standard decoder recurses: callers bound the nesting."""
    return json.loads(raw) if LONG_NUMBER.search(raw) else orjson.loads(raw)


def clean_items(body: bytes, what: str) -> Any:
    """`decode_json`, with every string sanitised when the bytes can hold a control character at all."""
    value = decode_json(body, what)
    if may_hold_control(body, strict_json=True):
        try:
            value = sanitize_deep(value)
        except RecursionError:
            raise MalformedResponse(f"the server sent JSON nested too deeply ({what})") from None
    return value


# How a list page's body becomes its items (`ApiClient.get_page(decode=...)`): `clean_items` by default.
PageDecode = Callable[[bytes, str], Any]


def page_decoder(fast: Callable[[bytes], list[Any] | None]) -> PageDecode:
    """A page decoder that gives `fast(body)` (models parsed straight from the bytes) when it can read the
    page, and `clean_items` (decoded, sanitised JSON, for the tolerant path) when it returns None."""
    def decode(content: bytes, what: str) -> Any:
        rows = fast(content)
        return clean_items(content, what) if rows is None else rows
    return decode


async def off_loop(size: int, func: Callable[..., T], *args: Any, at: int = OFF_LOOP) -> T:
    """`func(*args)`, in a worker thread when `size` (of the body it reads) is at least `at`."""
    if size >= at:
        return await asyncio.to_thread(func, *args)
    return func(*args)
