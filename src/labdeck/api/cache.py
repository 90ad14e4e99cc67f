"""The list cache: results keyed by instance, identity, path and params; TTL, stale-while-revalidate,
invalidation by resource family, and optional SQLite persistence so a relaunch paints the last data.

The disk holds pages, not whole lists (issue 25): a list is written as pages of `PAGE_ROWS` rows, at most
`persist_rows` rows of it (1,000 by default), so a list of a million rows never writes itself whole. A list
longer than that is kept on disk as its first pages, marked as only the start of the list: a relaunch never
serves it as the whole list (`get` does not see it), but `first_rows` gives it to paint the first page at
once while the listing is read again. `set_first` keeps the first page of a list read on demand
(`api/windowed.py`) the same way.

What is persisted is never a secret: a list under a `variables` path segment (project, group, instance and
pipeline CI variables) or any list holding an item shaped like a CI variable stays in memory only, masked,
hidden or not, and such rows found in an older cache file are dropped. The cache file is 0600 from its first
byte (created with that mode before SQLite opens it; SQLite gives its journal the same mode), its folder 0700.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final
from urllib.parse import unquote

from labdeck.api import changes_seen
from labdeck.api.params import normalise_params
from labdeck.api.private_files import open_private, private_folder
from labdeck.domain.catalogue import changed_families
from labdeck.domain.endpoints import Endpoint

log = logging.getLogger(__name__)

CacheKey = tuple[str, str, str, tuple[tuple[str, str], ...]]


def identity_of(token: str | None, sudo: str | None, auth: str = "private") -> str:
    """A short one-way digest of who is asking (token, auth kind, sudo); never the token itself."""
    digest = hashlib.sha256()
    for part in ("labdeck-identity-v1", auth, token or "", sudo or ""):
        digest.update(part.encode("utf-8") + b"\x00")
    return digest.hexdigest()[:24]


def normalise_path(path: str) -> str:
    """One spelling per resource path: percent-decoded (`acme%2Fapi` and `acme/api` are the same project
    path, whichever form the caller or httpx used), with one leading and no trailing slash."""
    return "/" + unquote(path).strip("/")


# The name under which a view's key holds its name (`make_key(view=...)`): no query parameter has it.
VIEW: Final = "\x00view"


def make_key(instance: str, identity: str, path: str, params: Mapping[str, Any] | None, *,
             view: str | None = None) -> CacheKey:
    """A cache key; `path` is normalised (decoded, no trailing slash) and params are encoded and sorted.
    `view`: the list as a narrower model holds it (a binding's own, `bindings.Listing(view=...)`): a key
    of its own, never the whole items' (the review's variable flags are not the Variables tab's
    variables), in the same family (a change to the path empties both)."""
    normalised = normalise_params(params)
    if view is not None:
        normalised = (*normalised, (VIEW, view))
    return (instance.rstrip("/"), identity, normalise_path(path), normalised)


def in_family(path: str, family: str) -> bool:
    """True when `path` is `family`, below it, or a list it belongs to (an ancestor of it)."""
    family = normalise_path(family)
    return (path == family or path.startswith(family + "/") or family.startswith(path + "/"))


_VARIABLE_MARKERS = ("variable_type", "masked", "hidden", "masked_and_hidden", "protected", "raw")


def _looks_like_variable(item: dict[Any, Any]) -> bool:
    """A CI variable as GitLab shows one: `key` and `value` with any of its flags."""
    return "value" in item and "key" in item and any(marker in item for marker in _VARIABLE_MARKERS)


def persistable(path: str, value: Any) -> bool:
    """False for what must never reach the disk: any `variables` path (CI variables of a project, group,
    instance or pipeline) and any value holding something shaped like a CI variable, however deep."""
    if "variables" in normalise_path(path).split("/"):
        return False
    stack, seen = [value], 0
    while stack and seen < 1_000_000:  # bounded: a deeper or larger value is kept in memory only
        current = stack.pop()
        seen += 1
        if isinstance(current, dict):
            if _looks_like_variable(current):
                return False
            stack.extend(v for v in current.values() if isinstance(v, (dict, list)))
        elif isinstance(current, list):
            stack.extend(v for v in current if isinstance(v, (dict, list)))
    return not stack


@dataclass
class _Entry:
    value: Any
    stored_at: float


PAGE_ROWS = 100  # rows per persisted page
PERSIST_ROWS = 1_000  # rows of one list written to disk at most (its first pages)
_WHOLE, _HEAD, _VALUE = 1, 0, 2  # a page row's `whole`: the list's pages, its first pages, a non-list value


# Lists held at most (the oldest go first): a group's deployments board of 500 projects alone holds about
# 1,000 (each project's environments and deployments), and must still be whole on a refresh.
MAX_ENTRIES = 2_500


class ListCache:
    """In-memory cache of list results with a TTL; `get` returns stale entries too, flagged as not fresh."""

    def __init__(self, ttl: float = 60.0, persist_path: str | os.PathLike[str] | None = None, *,
                 clock: Callable[[], float] = time.time, max_entries: int = MAX_ENTRIES,
                 persist_rows: int = PERSIST_ROWS) -> None:
        self.ttl = ttl
        self.persist_rows = persist_rows
        self.persist_path = Path(persist_path) if persist_path else None
        self._clock = clock
        self._max_entries = max_entries
        self._entries: dict[CacheKey, _Entry] = {}
        self._heads: dict[CacheKey, _Entry] = {}  # first rows of lists known only in part
        self._lock = threading.Lock()
        self._pending: set[asyncio.Future[None]] = set()
        # One writer thread keeps writes and deletes in the order they were made.
        self._writer: concurrent.futures.ThreadPoolExecutor | None = None

    # -- reading and writing --------------------------------------------------------------------------
    def get(self, key: CacheKey) -> tuple[Any, bool] | None:
        """`(value, fresh)` for a cached key (stale entries included), or None when nothing is cached."""
        entry = self._entries.get(key)
        if entry is None:
            return None
        return entry.value, (self._clock() - entry.stored_at) < self.ttl

    def age(self, key: CacheKey) -> float | None:
        """Seconds since the entry was stored (for the status bar's data age)."""
        entry = self._entries.get(key)
        return None if entry is None else self._clock() - entry.stored_at

    def set(self, key: CacheKey, value: Any) -> None:
        """Store a value now; persisted off the event loop when `persist_path` is set (a list: at most its
        first `persist_rows` rows, in pages)."""
        entry = _Entry(value, self._clock())
        self._entries.pop(key, None)
        self._heads.pop(key, None)
        self._entries[key] = entry
        while len(self._entries) > self._max_entries:
            self._entries.pop(next(iter(self._entries)))
        self._persist(lambda: self._write_rows([(key, entry)]))

    def set_first(self, key: CacheKey, rows: list[Any]) -> None:
        """Keep the first rows of a list read on demand (never served as the whole list; a relaunch
        paints them at once: `first_rows`)."""
        entry = _Entry(list(rows[:self.persist_rows]), self._clock())
        self._entries.pop(key, None)
        self._heads.pop(key, None)
        self._heads[key] = entry
        while len(self._heads) > self._max_entries:
            self._heads.pop(next(iter(self._heads)))
        self._persist(lambda: self._write_rows([(key, entry)], whole=False))

    def first_rows(self, key: CacheKey) -> list[Any] | None:
        """The first rows known of a list (of a whole cached list, or of one known only in part), stale or
        not, to paint at once while it is read again; None when none are known."""
        entry = self._entries.get(key) or self._heads.get(key)
        if entry is None or not isinstance(entry.value, list) or not entry.value:
            return None
        return entry.value[:self.persist_rows]

    def invalidate(self, family: str, instance: str | None = None) -> int:
        """Drop every entry of a resource family (`/groups/5/labels` drops `/groups/5/labels*` and the
        lists above it); returns how many were dropped."""
        doomed = [k for k in [*self._entries, *self._heads]
                  if in_family(k[2], family) and (instance is None or k[0] == instance.rstrip("/"))]
        for key in doomed:
            self._entries.pop(key, None)
            self._heads.pop(key, None)
        if doomed:
            self._persist(lambda: self._delete_rows(doomed))
        return len(doomed)

    def forget(self, endpoint: Endpoint, *values: object, instance: str | None = None,
               **named: object) -> int:
        """Drop the cached lists a change through `endpoint` (with these segment values) alters: its
        families in the catalogue (`Endpoint.families`)."""
        return sum(self.invalidate(path, instance) for path in endpoint.families(*values, **named))

    def changed(self, method: str, path: str, instance: str | None = None) -> None:
        """A change `method path` (relative to `/api/v4`, as sent) succeeded: drop the mutated path's own
        family and, when the catalogue knows the endpoint, the families it declares (`also`), so a change
        made by any caller (a service, `labdeck api`) empties the same lists; a `changes_seen.watching()`
        block of the task that sent it sees them too."""
        families = changed_families(method, path)
        for family in families:
            self.invalidate(family, instance)
        changes_seen.note(families)

    def clear(self) -> None:
        keys = [*self._entries, *self._heads]
        self._entries.clear()
        self._heads.clear()
        if keys:
            self._persist(lambda: self._delete_rows(keys))

    def __len__(self) -> int:
        return len(self._entries)

    # -- persistence ----------------------------------------------------------------------------------
    def _persist(self, job: Callable[[], None]) -> None:
        if self.persist_path is None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._guarded(job)
            return
        if self._writer is None:
            self._writer = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="labdeck-cache")
        future = loop.run_in_executor(self._writer, self._guarded, job)
        self._pending.add(future)
        future.add_done_callback(self._pending.discard)

    def _guarded(self, job: Callable[[], None]) -> None:
        try:
            with self._lock:
                job()
        except (sqlite3.Error, OSError, TypeError, ValueError):
            log.warning("list cache: could not persist", exc_info=True)

    async def flush(self) -> None:
        """Wait for pending writes to reach the disk."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)

    def close(self) -> None:
        """Stop the writer thread (pending writes finish first)."""
        if self._writer is not None:
            self._writer.shutdown(wait=True)
            self._writer = None

    def _connect(self) -> sqlite3.Connection:
        assert self.persist_path is not None
        private_folder(self.persist_path.parent, own=True)
        # Created 0600 before SQLite opens it (SQLite would create it 0644 under a usual umask, and gives the
        # -journal and -wal files the database's mode), never through a link; an older, looser file is
        # tightened.
        os.close(open_private(self.persist_path, os.O_RDWR))
        conn = sqlite3.connect(self.persist_path)
        conn.execute("CREATE TABLE IF NOT EXISTS pages (key TEXT, page INTEGER, stored_at REAL, "
                     "whole INTEGER, value TEXT, PRIMARY KEY (key, page))")
        return conn

    def _write_rows(self, rows: list[tuple[CacheKey, _Entry]], *, whole: bool = True) -> None:
        rows = [(k, e) for k, e in rows if persistable(k[2], e.value)]
        if not rows:
            return
        records = []
        for key, entry in rows:
            name, value = json.dumps(key), entry.value
            if not isinstance(value, list):
                records.append((name, 0, entry.stored_at, _VALUE, json.dumps(value, default=_plain)))
                continue
            kind = _WHOLE if whole and len(value) <= self.persist_rows else _HEAD
            kept = value[:self.persist_rows]
            records.extend((name, at // PAGE_ROWS, entry.stored_at, kind,
                            json.dumps(kept[at:at + PAGE_ROWS], default=_plain))
                           for at in range(0, max(len(kept), 1), PAGE_ROWS))
        conn = self._connect()
        try:
            with conn:
                conn.executemany("DELETE FROM pages WHERE key = ?", [(json.dumps(k),) for k, _ in rows])
                conn.executemany("INSERT INTO pages VALUES (?, ?, ?, ?, ?)", records)
        finally:
            conn.close()

    def _delete_rows(self, keys: list[CacheKey]) -> None:
        conn = self._connect()
        try:
            with conn:
                conn.executemany("DELETE FROM pages WHERE key = ?", [(json.dumps(k),) for k in keys])
        finally:
            conn.close()

    def _read_rows(self) -> list[tuple[CacheKey, _Entry, bool]]:
        """What the disk holds: `(key, entry, whole)` per list, its pages joined; an older file's whole
        lists (table `entries`) are read once and written again as pages."""
        if self.persist_path is None or not self.persist_path.exists():
            return []
        with self._lock:
            try:
                conn = self._connect()
            except (sqlite3.Error, OSError):
                log.warning("list cache: cannot open the cache file", exc_info=True)
                return []
            try:
                rows = conn.execute("SELECT key, page, stored_at, whole, value FROM pages "
                                    "ORDER BY stored_at, key, page").fetchall()
                legacy = _legacy_rows(conn)
            except sqlite3.Error:
                log.warning("list cache: unreadable cache file", exc_info=True)
                return []
            finally:
                conn.close()
        joined: dict[str, tuple[float, int, list[Any]]] = {}
        for raw_key, _page, stored_at, kind, raw_value in rows:
            try:
                value = json.loads(raw_value)
            except ValueError:
                continue
            held = joined.setdefault(raw_key, (float(stored_at), int(kind), []))
            if int(kind) == _VALUE:
                joined[raw_key] = (float(stored_at), _VALUE, value)
            elif isinstance(value, list):
                held[2].extend(value)
        out: list[tuple[CacheKey, _Entry, bool]] = []
        secret: list[CacheKey] = []
        for raw_key, (stored_at, kind, value) in [*joined.items(), *legacy]:
            try:
                inst, ident, path, params = json.loads(raw_key)
                key: CacheKey = (inst, ident, path, tuple((str(a), str(b)) for a, b in params))
            except (ValueError, TypeError):
                continue
            if persistable(path, value):
                out.append((key, _Entry(value, stored_at), kind != _HEAD))
            else:  # written by an older labdeck: never load it, and remove it from the disk
                secret.append(key)
        if secret:
            self._guarded(lambda: self._delete_rows(secret))
        if legacy:  # an older file: its lists written again as pages, its whole lists dropped
            again = [(k, e) for k, e, whole in out if whole]
            def migrate() -> None:
                self._write_rows(again)
                self._drop_legacy()

            self._guarded(migrate)
        return out

    def _drop_legacy(self) -> None:
        conn = self._connect()
        try:
            with conn:
                conn.execute("DROP TABLE IF EXISTS entries")
        finally:
            conn.close()

    def _merge(self, rows: list[tuple[CacheKey, _Entry, bool]]) -> int:
        loaded = 0
        for key, entry, whole in rows:
            if key not in self._entries and key not in self._heads:
                (self._entries if whole else self._heads)[key] = entry
                loaded += 1
        return loaded

    def load_sync(self) -> int:
        """Read persisted entries into memory (entries already in memory win); returns how many loaded."""
        return self._merge(self._read_rows())

    async def load(self) -> int:
        """Read persisted entries off the event loop, then merge them on it."""
        return self._merge(await asyncio.to_thread(self._read_rows))


def _legacy_rows(conn: sqlite3.Connection) -> list[tuple[str, tuple[float, int, Any]]]:
    """The whole lists of a cache file written before pages (table `entries`), if any."""
    found = conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'entries'").fetchone()
    if found is None:
        return []
    out = []
    for raw_key, stored_at, raw_value in conn.execute("SELECT key, stored_at, value FROM entries"):
        try:
            out.append((raw_key, (float(stored_at), _WHOLE, json.loads(raw_value))))
        except (ValueError, TypeError):
            continue
    return out


def _plain(value: Any) -> Any:
    """JSON data of a cached model (listings may cache parsed models: they are read back as dicts)."""
    dump = getattr(value, "model_dump", None)
    if dump is None:
        raise TypeError(f"{type(value).__name__} is not JSON serialisable")
    return dump(mode="json")
