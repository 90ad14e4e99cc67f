"""Every file labdeck creates is 0600 from its first byte, never written through a symbolic link, in a 0700
folder (issue 22 item 5): the one mechanism (`labdeck.api.private_files`) and the files that use it, the undo
journal, the persisted list cache, the registry tag cache and labdeck's state file."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from labdeck.api.cache import ListCache
from labdeck.api.journal import Journal, JournalEntry
from labdeck.api.private_files import UnsafeFile, create_unique, private_folder, write_new, write_private
from labdeck.api.tag_cache import TagDetailCache
from labdeck.config.errors import ConfigError
from labdeck.config.state import State, save_state


def mode(path: Path) -> int:
    return stat.S_IMODE(path.lstat().st_mode)


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    old = os.umask(0o022)  # what most users have: files 0644, folders 0755 unless labdeck says otherwise
    yield
    os.umask(old)


def entry(n: int = 1) -> JournalEntry:
    return JournalEntry(id=f"e{n}", at=0.0, operation="delete label", kind="label", target="bug",
                        method="DELETE", path="/projects/1/labels/bug")


def test_a_journal_left_0644_is_tightened_and_its_folder_too(tmp_path: Path) -> None:
    folder = tmp_path / "labdeck" / "journal"
    folder.mkdir(parents=True, mode=0o755)
    path = folder / "demo.jsonl"
    path.write_text("", encoding="utf-8")
    path.chmod(0o644)
    Journal(path).append(entry())
    assert mode(path) == 0o600
    assert mode(folder) == 0o700
    assert "e1" in path.read_text(encoding="utf-8")


def test_the_journal_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "labdeck" / "journal"
    folder.mkdir(parents=True)
    elsewhere = tmp_path / "victim.txt"
    elsewhere.write_text("untouched\n", encoding="utf-8")
    (folder / "demo.jsonl").symlink_to(elsewhere)
    with pytest.raises(UnsafeFile, match="symbolic link"):
        Journal(folder / "demo.jsonl").append(entry())
    assert elsewhere.read_text(encoding="utf-8") == "untouched\n"
    dangling = folder / "other.jsonl"
    dangling.symlink_to(tmp_path / "nowhere.jsonl")
    with pytest.raises(UnsafeFile):
        Journal(dangling).append(entry())
    assert not (tmp_path / "nowhere.jsonl").exists()


async def test_a_change_is_refused_before_sending_when_its_journal_is_a_symlink(tmp_path: Path) -> None:
    import httpx

    from labdeck.api.client import ApiClient
    from labdeck.api.journal import JournalUnavailable
    from labdeck.api.settings import ConnectionSettings

    sent: list[httpx.Request] = []
    link = tmp_path / "labdeck" / "journal" / "demo.jsonl"
    link.parent.mkdir(parents=True)
    link.symlink_to(tmp_path / "victim")
    client = ApiClient(ConnectionSettings("https://gitlab.example"),
                       transport=httpx.MockTransport(lambda r: sent.append(r) or httpx.Response(204)))
    client.journal = Journal(link)
    async with client:
        with pytest.raises(JournalUnavailable, match="symbolic link"):
            await client.delete("/projects/1/labels/bug")
    assert sent == [] and not (tmp_path / "victim").exists()


def test_a_new_journal_is_0600_in_a_0700_folder(tmp_path: Path) -> None:
    path = tmp_path / "state" / "journal" / "demo.jsonl"
    Journal(path).append(entry())
    assert mode(path) == 0o600 and mode(path.parent) == 0o700


def test_the_cache_folder_left_0755_ends_0700(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o755)  # what the tag cache (or anything else) left there first
    db = folder / "lists.sqlite"
    ListCache(persist_path=db).set(("i", "id", "/projects", ()), [{"id": 1}])
    ListCache(persist_path=db).close()
    assert mode(folder) == 0o700 and mode(db) == 0o600


def test_the_cache_file_is_never_opened_through_a_symlink(tmp_path: Path) -> None:
    folder = tmp_path / "cache"
    folder.mkdir(mode=0o700)
    (folder / "lists.sqlite").symlink_to(tmp_path / "elsewhere.sqlite")
    with pytest.raises(UnsafeFile):
        ListCache(persist_path=folder / "lists.sqlite")._connect()
    assert not (tmp_path / "elsewhere.sqlite").exists()


def test_the_tag_cache_is_0600_in_a_0700_folder_and_replaces_a_link_without_following_it(
        tmp_path: Path) -> None:
    folder = tmp_path / "labdeck"
    cache = TagDetailCache.for_instance("https://gitlab.example", folder)
    assert cache.path is not None
    cache._data = {}
    cache.save()
    assert mode(folder) == 0o700 and mode(cache.path) == 0o600
    folder.chmod(0o755)
    victim = tmp_path / "victim.json"
    victim.write_text("untouched", encoding="utf-8")
    cache.path.unlink()
    cache.path.symlink_to(victim)
    cache.save()  # refused quietly (a cache that cannot be saved is read again next time)
    assert victim.read_text(encoding="utf-8") == "untouched"


def test_the_state_file_is_never_written_through_a_symlink(tmp_path: Path) -> None:
    victim = tmp_path / "victim.json"
    victim.write_text("untouched", encoding="utf-8")
    link = tmp_path / "labdeck" / "state.json"
    link.parent.mkdir(mode=0o755)
    link.symlink_to(victim)
    with pytest.raises(ConfigError, match="symbolic link"):
        save_state(State(theme="dark", path=link))
    assert victim.read_text(encoding="utf-8") == "untouched"
    link.unlink()
    save_state(State(theme="dark", path=link))
    assert mode(link) == 0o600 and mode(link.parent) == 0o700  # labdeck's own folder, tightened


def test_a_new_file_never_goes_through_a_dangling_link_or_over_a_file(tmp_path: Path) -> None:
    (tmp_path / "out.csv").symlink_to(tmp_path / "target.csv")
    with pytest.raises(UnsafeFile, match="symbolic link"):
        create_unique(tmp_path / "out.csv")
    assert not (tmp_path / "target.csv").exists()
    (tmp_path / "a.txt").write_text("first", encoding="utf-8")
    written = write_new(tmp_path / "a.txt", b"second")
    assert written.name == "a (1).txt" and mode(written) == 0o600
    assert (tmp_path / "a.txt").read_text(encoding="utf-8") == "first"


def test_write_private_refuses_a_link_unless_asked_to_follow_it(tmp_path: Path) -> None:
    real = tmp_path / "real.toml"
    real.write_text("old", encoding="utf-8")
    link = tmp_path / "link.toml"
    link.symlink_to(real)
    with pytest.raises(UnsafeFile):
        write_private(link, b"new", make_folder=False)
    assert real.read_text(encoding="utf-8") == "old"
    write_private(link, b"new", make_folder=False, follow_link=True)  # the user's own dotfiles config
    assert link.is_symlink() and real.read_text(encoding="utf-8") == "new"


def test_a_users_folder_is_never_chmodded_but_labdecks_own_is(tmp_path: Path) -> None:
    mine = tmp_path / "Downloads"
    mine.mkdir(mode=0o755)
    private_folder(mine, own=False)
    assert mode(mine) == 0o755
    own = tmp_path / "x" / "labdeck"
    own.mkdir(parents=True, mode=0o755)
    private_folder(own)
    assert mode(own) == 0o700
    created = tmp_path / "new" / "deeper"
    private_folder(created, own=False)
    assert mode(created) == 0o700 and mode(created.parent) == 0o700
