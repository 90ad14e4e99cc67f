"""The list cache: results keyed by instance, identity, path and params; TTL, stale-while-revalidate,
invalidation by resource family, and optional SQLite persistence so a relaunch paints the last data.

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
from typing import Any
from urllib.parse import unquote

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


def make_key(instance: str, identity: str, path: str, params: Mapping[str, Any] | None) -> CacheKey:
    """A cache key; `path` is normalised (decoded, no trailing slash) and params are encoded and sorted."""
    return (instance.rstrip("/"), identity, normalise_path(path), normalise_params(params))


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


# Lists held at most (the oldest go first): a group's deployments board of 500 projects alone holds about
# 1,000 (each project's environments and deployments), and must still be whole on a refresh.
MAX_ENTRIES = 2_500


class ListCache:
    """In-memory cache of list results with a TTL; `get` returns stale entries too, flagged as not fresh."""

    def __init__(self, ttl: float = 60.0, persist_path: str | os.PathLike[str] | None = None, *,
                 clock: Callable[[], float] = time.time, max_entries: int = MAX_ENTRIES) -> None:
        self.ttl = ttl
        self.persist_path = Path(persist_path) if persist_path else None
        self._clock = clock
        self._max_entries = max_entries
        self._entries: dict[CacheKey, _Entry] = {}
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
        """Store a value now; persisted off the event loop when `persist_path` is set."""
        entry = _Entry(value, self._clock())
        self._entries.pop(key, None)
        self._entries[key] = entry
        while len(self._entries) > self._max_entries:
            self._entries.pop(next(iter(self._entries)))
        self._persist(lambda: self._write_rows([(key, entry)]))

    def invalidate(self, family: str, instance: str | None = None) -> int:
        """Drop every entry of a resource family (`/groups/5/labels` drops `/groups/5/labels*` and the
        lists above it); returns how many were dropped."""
        doomed = [k for k in self._entries
                  if in_family(k[2], family) and (instance is None or k[0] == instance.rstrip("/"))]
        for key in doomed:
            del self._entries[key]
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
        made by any caller (a service, `labdeck api`) empties the same lists."""
        for family in changed_families(method, path):
            self.invalidate(family, instance)

    def clear(self) -> None:
        keys = list(self._entries)
        self._entries.clear()
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
        conn.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, stored_at REAL, value TEXT)")
        return conn

    def _write_rows(self, rows: list[tuple[CacheKey, _Entry]]) -> None:
        rows = [(k, e) for k, e in rows if persistable(k[2], e.value)]
        if not rows:
            return
        conn = self._connect()
        try:
            with conn:
                conn.executemany("INSERT OR REPLACE INTO entries VALUES (?, ?, ?)",
                                 [(json.dumps(k), e.stored_at, json.dumps(e.value, default=_plain))
                                  for k, e in rows])
        finally:
            conn.close()

    def _delete_rows(self, keys: list[CacheKey]) -> None:
        conn = self._connect()
        try:
            with conn:
                conn.executemany("DELETE FROM entries WHERE key = ?", [(json.dumps(k),) for k in keys])
        finally:
            conn.close()

    def _read_rows(self) -> list[tuple[CacheKey, _Entry]]:
        if self.persist_path is None or not self.persist_path.exists():
            return []
        with self._lock:
            try:
                conn = self._connect()
            except (sqlite3.Error, OSError):
                log.warning("list cache: cannot open the cache file", exc_info=True)
                return []
            try:
                rows = conn.execute("SELECT key, stored_at, value FROM entries ORDER BY stored_at").fetchall()
            except sqlite3.Error:
                log.warning("list cache: unreadable cache file", exc_info=True)
                return []
            finally:
                conn.close()
        out: list[tuple[CacheKey, _Entry]] = []
        secret: list[CacheKey] = []
        for raw_key, stored_at, raw_value in rows:
            try:
                inst, ident, path, params = json.loads(raw_key)
                key: CacheKey = (inst, ident, path, tuple((str(a), str(b)) for a, b in params))
                entry = _Entry(json.loads(raw_value), float(stored_at))
            except (ValueError, TypeError):
                continue
            if persistable(path, entry.value):
                out.append((key, entry))
            else:  # written by an older labdeck: never load it, and remove it from the disk
                secret.append(key)
        if secret:
            self._guarded(lambda: self._delete_rows(secret))
        return out

    def _merge(self, rows: list[tuple[CacheKey, _Entry]]) -> int:
        loaded = 0
        for key, entry in rows:
            if key not in self._entries:
                self._entries[key] = entry
                loaded += 1
        return loaded

    def load_sync(self) -> int:
        """Read persisted entries into memory (entries already in memory win); returns how many loaded."""
        return self._merge(self._read_rows())

    async def load(self) -> int:
        """Read persisted entries off the event loop, then merge them on it."""
        return self._merge(await asyncio.to_thread(self._read_rows))


def _plain(value: Any) -> Any:
    """JSON data of a cached model (listings may cache parsed models: they are read back as dicts)."""
    dump = getattr(value, "model_dump", None)
    if dump is None:
        raise TypeError(f"{type(value).__name__} is not JSON serialisable")
    return dump(mode="json")
