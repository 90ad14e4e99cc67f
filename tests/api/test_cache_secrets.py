"""The persisted list cache never holds a CI variable value (masked, hidden or not, under any path), drops
such rows written by an older labdeck, and its file and folder are private from the first byte."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from pathlib import Path
from typing import Any

import pytest

import labdeck.api.cache as cache_module
from labdeck.api.cache import ListCache, make_key, persistable

SECRET = "s3cr3t-variable-value-4242"
VARIABLE = {"key": "DEPLOY_TOKEN", "value": SECRET, "variable_type": "env_var", "masked": True,
            "protected": False, "hidden": False}


def key(path: str) -> Any:
    return make_key("https://gl.test", "me", path, {})


def _disk_text(path: Path) -> str:
    conn = sqlite3.connect(path)
    try:
        return json.dumps(conn.execute("SELECT key, value FROM pages").fetchall())
    finally:
        conn.close()


@pytest.mark.parametrize("path", ["/projects/1/variables", "/groups/acme%2Fplatform/variables",
                                  "/admin/ci/variables", "/projects/1/pipelines/9/variables"])
def test_variable_lists_are_never_persisted(tmp_path: Path, path: str) -> None:
    db = tmp_path / "c.sqlite"
    cache = ListCache(persist_path=db)
    cache.set(key(path), [{"key": "A", "value": SECRET}])  # even without flags: the path says what it is
    cache.set(key("/projects"), [{"id": 1}])
    assert cache.get(key(path)) is not None  # in memory, for this run only
    assert SECRET not in _disk_text(db) and "/projects" in _disk_text(db)
    assert SECRET not in db.read_bytes().decode("latin-1")


@pytest.mark.parametrize("value", [[VARIABLE], [{"id": 3, "variables": [VARIABLE]}],
                                   [{"schedule": {"nested": [dict(VARIABLE, masked=False)]}}]])
def test_anything_shaped_like_a_variable_is_never_persisted(tmp_path: Path, value: Any) -> None:
    db = tmp_path / "c.sqlite"
    cache = ListCache(persist_path=db)
    cache.set(key("/projects/1/pipeline_schedules"), value)
    assert not persistable("/projects/1/pipeline_schedules", value)
    assert not db.exists() or SECRET not in _disk_text(db)


def test_ordinary_lists_with_keys_and_values_are_still_persisted() -> None:
    assert persistable("/projects/1/labels", [{"id": 1, "name": "bug", "value": "x"}])
    assert persistable("/users", [{"id": 1, "username": "key"}])


async def test_rows_left_by_an_older_labdeck_are_dropped_from_disk(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE entries (key TEXT PRIMARY KEY, stored_at REAL, value TEXT)")
    for path, value in (("/groups/5/variables", [VARIABLE]), ("/groups", [{"id": 5}])):
        conn.execute("INSERT INTO entries VALUES (?, ?, ?)",
                     (json.dumps(list(key(path))), 1.0, json.dumps(value)))
    conn.commit()
    conn.close()
    cache = ListCache(persist_path=db)
    assert await cache.load() == 1
    assert cache.get(key("/groups/5/variables")) is None
    assert cache.get(key("/groups")) is not None
    assert SECRET not in _disk_text(db) and "/groups" in _disk_text(db)  # written again as pages
    assert SECRET not in db.read_bytes().decode("latin-1")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_cache_file_is_0600_before_sqlite_opens_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "cache" / "labdeck" / "c.sqlite"
    seen: list[int] = []
    real_connect = sqlite3.connect

    def connect(path: Any, *args: Any, **kwargs: Any) -> sqlite3.Connection:
        seen.append(_mode(Path(path)))  # the file already exists, private, when SQLite first touches it
        return real_connect(path, *args, **kwargs)

    monkeypatch.setattr(cache_module.sqlite3, "connect", connect)
    old = os.umask(0)  # the most permissive umask: nothing may rely on it
    try:
        ListCache(persist_path=db).set(key("/projects"), [{"id": 1}])
    finally:
        os.umask(old)
    assert seen and set(seen) == {0o600}
    assert _mode(db) == 0o600 and _mode(db.parent) == 0o700
    assert {p.name for p in db.parent.iterdir()} == {"c.sqlite"}  # no journal left behind


def test_a_loose_file_from_an_older_labdeck_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "c.sqlite"
    db.touch()
    db.chmod(0o644)
    ListCache(persist_path=db).set(key("/projects"), [{"id": 1}])
    assert _mode(db) == 0o600
