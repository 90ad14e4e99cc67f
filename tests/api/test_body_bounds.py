"""Response bodies are bounded (issue 13 items 2 and 7): a body over `max_body` (declared, streamed, or
inflated from gzip) is refused with one clear error; JSON nested 200,000 deep is a `MalformedResponse`,
never a `RecursionError`, in the client and in `labdeck api`; large bodies decoded off the event loop give
the same results as small ones."""

from __future__ import annotations

import asyncio
import gzip
import json
import zlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from labdeck.api import body as body_module
from labdeck.api.errors import MalformedResponse, NetworkError
from labdeck.cli.api import run_api_command

DEEP = b"[" * 200_000 + b"]" * 200_000


class Chunks(httpx.AsyncByteStream):
    """A streamed body without a Content-Length, recording how many chunks were read."""

    def __init__(self, chunk: bytes, count: int) -> None:
        self.chunk, self.count, self.sent = chunk, count, 0

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for _ in range(self.count):
            self.sent += 1
            yield self.chunk


async def test_a_declared_length_over_the_cap_is_refused_unread(make_client: Any) -> None:
    client = make_client(lambda r: httpx.Response(200, content=b"[" + b"1," * 600_000 + b"1]"),
                         max_body=1024 * 1024)
    with pytest.raises(MalformedResponse, match=r"GET /projects: response larger than 1 MiB"):
        await client.get_json("/projects")


async def test_a_streamed_body_stops_at_the_cap(make_client: Any) -> None:
    stream = Chunks(b"x" * 65536, 1000)  # 64 MB if read to the end
    client = make_client(lambda r: httpx.Response(200, stream=stream), max_body=1024 * 1024)
    with pytest.raises(MalformedResponse, match="response larger than 1 MiB"):
        await client.get_page("/projects")
    assert stream.sent <= 17  # stopped just past 1 MiB, not read to the end
    assert client.request_log.entries[-1].error is not None


async def test_a_gzip_bomb_is_counted_after_decompression(make_client: Any) -> None:
    bomb = gzip.compress(b"[" + b" " * (40 * 1024 * 1024) + b"]")  # 40 KB inflating to 40 MB
    assert len(bomb) < 100_000
    client = make_client(lambda r: httpx.Response(200, content=bomb, headers={"content-encoding": "gzip"}),
                         max_body=1024 * 1024)
    with pytest.raises(MalformedResponse, match="response larger than 1 MiB"):
        await client.get_json("/projects")


async def test_gzip_under_the_cap_is_decoded(make_client: Any) -> None:
    data = [{"id": n, "name": f"p{n}"} for n in range(50)]
    packed = gzip.compress(json.dumps(data).encode())
    client = make_client(lambda r: httpx.Response(200, content=packed, headers={"content-encoding": "gzip"}))
    assert (await client.get_page("/projects")).items == data


@pytest.mark.parametrize("method", ["get_json", "get_page"])
async def test_deep_nesting_is_malformed_not_a_recursion_error(make_client: Any, method: str) -> None:
    client = make_client(lambda r: httpx.Response(200, content=DEEP))
    with pytest.raises(MalformedResponse, match="nested too deeply"):
        await getattr(client, method)("/projects")


async def test_nesting_orjson_accepts_but_a_walk_cannot_is_malformed(make_client: Any) -> None:
    """1,000 levels with a control character inside: the sanitising walk recurses; it must end in a
    clear error (or a clean result), never a RecursionError."""
    deep = b"[" * 1000 + b'"\\u001b"' + b"]" * 1000
    client = make_client(lambda r: httpx.Response(200, content=deep))
    try:
        page = await client.get_page("/projects")
    except MalformedResponse as exc:
        assert "nested too deeply" in str(exc)
    else:
        assert b"\\u001b" not in json.dumps(page.items).encode()


def test_labdeck_api_reports_deep_nesting_in_one_line(capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch, tmp_path: Any) -> None:
    monkeypatch.setenv("LABDECK_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("GITLAB_URL", "https://gitlab.test")
    monkeypatch.setenv("GITLAB_TOKEN", "glpat-aaaaaaaaaaaaaaaaaaaa")
    transport = httpx.MockTransport(lambda r: httpx.Response(200, content=DEEP,
                                                             headers={"content-type": "application/json"}))
    for argv in (["projects"], ["projects", "--paginate"]):
        assert run_api_command(argv, transport=transport) == 1
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1 and "nested too deeply" in err
        assert "Traceback" not in err and "RecursionError" not in err


async def test_large_bodies_are_decoded_off_the_loop_with_the_same_result(
        make_client: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    count = body_module.OFF_LOOP // 40  # items of about 60 bytes: a body past the threshold
    data = [{"id": n, "title": f"issue {n} \u00e9", "nested": {"k": [n, None, True]}} for n in range(count)]
    raw = json.dumps(data).encode()
    assert len(raw) >= body_module.OFF_LOOP
    threads: list[str] = []
    real = asyncio.to_thread

    async def spy(func: Any, *args: Any, **kwargs: Any) -> Any:
        threads.append(func.__name__)
        return await real(func, *args, **kwargs)

    monkeypatch.setattr(body_module.asyncio, "to_thread", spy)
    client = make_client(lambda r: httpx.Response(200, content=raw))
    assert await client.get_json("/projects") == data
    assert (await client.get_page("/projects")).items == data
    assert threads == ["decode_json", "clean_items"]
    small = make_client(lambda r: httpx.Response(200, content=b'[{"id": 1}]'))
    assert await small.get_json("/projects") == [{"id": 1}]
    assert threads == ["decode_json", "clean_items"]  # a small body stays on the loop


async def test_a_large_page_with_control_characters_is_still_sanitised(make_client: Any) -> None:
    data = [{"id": n, "title": f"t{n}\x1b[31m"} for n in range(20_000)]
    client = make_client(lambda r: httpx.Response(200, content=json.dumps(data).encode()))
    page = await client.get_page("/projects")
    assert page.items[0]["title"] == "t0\u241b[31m" and len(page.items) == 20_000


async def test_a_read_response_is_freed_without_the_cycle_collector(make_client: Any) -> None:
    """Nothing keeps a page's response (and its body) alive once the page is decoded, even with the
    garbage collector paused, as it is while a listing loads."""
    import gc
    import weakref

    sent: list[weakref.ref[httpx.Response]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        response = httpx.Response(200, json=[{"id": 1}])
        sent.append(weakref.ref(response))
        return response

    client = make_client(handler)
    gc.disable()
    try:
        page = await client.get_page("/projects")
        assert page.items == [{"id": 1}]
        for _ in range(3):
            await asyncio.sleep(0)  # asyncio's own callbacks of the finished exchange run
        assert sent and sent[0]() is None
    finally:
        gc.enable()


async def test_raw_deflate_is_refused_as_a_decoding_error(make_client: Any) -> None:
    packer = zlib.compressobj(wbits=-zlib.MAX_WBITS)  # raw deflate: no zlib header (some servers send it)
    raw = packer.compress(b'[{"id": 1}]') + packer.flush()
    client = make_client(lambda r: httpx.Response(200, stream=Chunks(raw, 1),
                                                  headers={"content-encoding": "deflate"}))
    with pytest.raises(NetworkError, match="raw deflate bodies are not read"):
        await client.get_page("/projects")
