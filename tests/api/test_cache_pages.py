"""The persisted list cache stores pages, not whole lists (issue 25): a list is written as pages of 100
rows, at most `persist_rows` rows of it, so a huge list never writes itself whole to disk; a list cut that
way is never served as the whole list after a relaunch, but its first page is there to paint at once, and
so is the first page of a list read on demand (`WindowedList`)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import httpx
from sandbox_clients import sandbox_settings

from labdeck.api.cache import ListCache, make_key
from labdeck.api.client import ApiClient
from labdeck.api.users import UsersService
from labdeck.sandbox.app import create_app
from labdeck.sandbox.options import SandboxOptions


def key(path: str) -> Any:
    return make_key("https://gl.test", "me", path, {"state": "opened"})


def disk_pages(db: Path) -> list[tuple[str, int, int]]:
    """(key, page, rows in it) of every page on disk."""
    conn = sqlite3.connect(db)
    try:
        return [(k, p, len(json.loads(v)))
                for k, p, v in conn.execute("SELECT key, page, value FROM pages ORDER BY page")]
    finally:
        conn.close()


async def test_a_huge_list_is_written_as_its_first_pages_only(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite"
    first = ListCache(persist_path=db, persist_rows=300)
    huge = [{"id": i, "title": f"issue {i}"} for i in range(50_000)]
    first.set(key("/issues"), huge)
    first.set(key("/groups"), [{"id": 1}, {"id": 2}])
    await first.flush()
    pages = disk_pages(db)
    assert [(p, n) for k, p, n in pages if "/issues" in k] == [(0, 100), (1, 100), (2, 100)]  # not 500
    assert db.stat().st_size < 200_000  # 50,000 rows whole would be about 1.5 MB
    assert first.get(key("/issues"))[0] is huge  # type: ignore[index]  # memory keeps it whole this run

    again = ListCache(persist_path=db, persist_rows=300)
    assert await again.load() == 2
    assert again.get(key("/issues")) is None  # only its start is known: never served as the whole list
    head = again.first_rows(key("/issues"))
    assert head is not None and [r["id"] for r in head] == list(range(300))
    assert again.get(key("/groups")) == ([{"id": 1}, {"id": 2}], True)  # a short list: whole, as ever


async def test_a_relaunch_paints_the_first_page_of_a_list_read_on_demand(tmp_path: Path) -> None:
    db = tmp_path / "cache.sqlite"
    app = create_app(SandboxOptions(scale="huge", async_delay=0.05))

    def client() -> ApiClient:
        return ApiClient(sandbox_settings(), transport=httpx.ASGITransport(app),
                         cache=ListCache(persist_path=db))

    first = client()
    window = UsersService(first).window(keyset=True, max_rows=500)
    window.readahead = 0
    rows = await window.ensure(450)  # five pages read; the list stays partial
    assert rows and not window.complete
    await first.cache.flush()
    await first.aclose()
    assert [(p, n) for _, p, n in disk_pages(db)] == [(0, 100)]  # the first page, never the five read

    second = client()  # a relaunch
    await second.cache.load()
    again = UsersService(second).window(keyset=True, max_rows=500)
    painted = again.cached_first()
    assert painted is not None and len(painted) == 100 and again.requests == 0
    assert second.cache.get(again.key()) is None  # the start of a partial list is not the list
    fresh = await again.start()
    assert [u.id for u in fresh] == [u.id for u in painted]  # then read again: the same first page
    await second.aclose()
