"""labdeck's state file: what the app remembers (theme, last download folder) outside the user's config,
0600 and atomic, forgiving when missing or damaged."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from labdeck.config.errors import ConfigError
from labdeck.config.state import State, load_state, save_state, state_path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_env_override_names_the_file(tmp_path: Path) -> None:
    assert state_path({"LABDECK_STATE": str(tmp_path / "s.json")}) == tmp_path / "s.json"
    assert state_path({}).name == "state.json" and "labdeck" in str(state_path({}))


def test_missing_and_damaged_files_are_an_empty_state(tmp_path: Path) -> None:
    assert load_state(tmp_path / "none.json") == State()
    for damaged in (b"{not json", b"[1, 2]", b"\xff\xfe", b'{"theme": 5, "download_dir": ""}'):
        (tmp_path / "bad.json").write_bytes(damaged)
        state = load_state(tmp_path / "bad.json")
        assert (state.theme, state.download_dir) == (None, None)


def test_round_trip_and_with(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "folder" / "state.json"
    state = load_state(path).with_(theme="labdeck-light", download_dir=tmp_path / "dl")
    assert state.path == path and state.download_dir == str(tmp_path / "dl")
    save_state(state)
    again = load_state(path)
    assert (again.theme, again.download_dir) == ("labdeck-light", str(tmp_path / "dl"))
    assert again.with_(theme=None).download_dir == again.download_dir  # only what is named changes
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700
    assert [p.name for p in path.parent.iterdir()] == ["state.json"]  # no temp file left behind


def test_mode_is_0600_even_under_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        save_state(State(theme="x", path=tmp_path / "s" / "state.json"))
    finally:
        os.umask(old)
    assert _mode(tmp_path / "s" / "state.json") == 0o600 and _mode(tmp_path / "s") == 0o700


def test_a_failing_save_is_one_line_and_keeps_the_old_file(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    with pytest.raises(ConfigError, match="cannot save labdeck's state") as caught:
        save_state(State(theme="t", path=blocker / "state.json"))
    assert "\n" not in str(caught.value) and str(blocker) in str(caught.value)
    path = tmp_path / "state.json"
    save_state(State(theme="old", path=path))

    def failing_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(os, "replace", failing_replace)
        with pytest.raises(ConfigError, match="No space left on device"):
            save_state(State(theme="new", path=path))
    assert load_state(path).theme == "old"
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []  # the temp file is gone


def test_default_path_comes_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_STATE", str(tmp_path / "mine.json"))
    save_state(load_state().with_(theme="t"))
    assert load_state().theme == "t" and (tmp_path / "mine.json").is_file()
