"""labdeck's own state: what the app remembers between runs (the theme picked, the last download folder),
kept in a file of its own so the config the user edits is never rewritten.

The file is `$LABDECK_STATE` if set, else `state.json` in the user state folder
(`platformdirs.user_state_path("labdeck")`, `~/.local/state/labdeck` on Linux). It is written atomically,
mode 0600 from the first byte. A missing, unreadable or damaged file is an empty state (never an error: it
holds nothing that cannot be chosen again).

    state = load_state()
    save_state(state.with_(theme="labdeck-light"))
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from labdeck.api.private_files import write_private
from labdeck.config.errors import ConfigError

_UNSET: Any = object()


def state_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$LABDECK_STATE`, else `state.json` in the user state folder."""
    env = os.environ if environ is None else environ
    if env.get("LABDECK_STATE"):
        return Path(env["LABDECK_STATE"]).expanduser()
    from platformdirs import user_state_path

    return user_state_path("labdeck", appauthor=False) / "state.json"


@dataclass(frozen=True)
class State:
    """What labdeck remembers: the theme picked in the app and the last download folder (None: not yet)."""

    theme: str | None = None
    download_dir: str | None = None
    path: Path = field(default_factory=state_path, compare=False)

    def with_(self, *, theme: str | None = _UNSET, download_dir: str | os.PathLike[str] | None = _UNSET,
              ) -> State:
        """A copy with the given values changed."""
        changes: dict[str, Any] = {}
        if theme is not _UNSET:
            changes["theme"] = theme
        if download_dir is not _UNSET:
            changes["download_dir"] = None if download_dir is None else str(download_dir)
        return dataclasses.replace(self, **changes)


def _text(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value.strip() else None


def load_state(path: str | os.PathLike[str] | None = None) -> State:
    """The state at `path` (default `state_path()`); an empty state when missing or unreadable."""
    target = Path(path).expanduser() if path is not None else state_path()
    try:
        data = json.loads(target.read_bytes())
    except (OSError, ValueError, UnicodeDecodeError):
        return State(path=target)
    if not isinstance(data, dict):
        return State(path=target)
    return State(theme=_text(data, "theme"), download_dir=_text(data, "download_dir"), path=target)


def save_state(state: State) -> None:
    """Write `state` to `state.path` atomically, mode 0600; `ConfigError` (one line) when it cannot."""
    data = {"theme": state.theme, "download_dir": state.download_dir}
    try:
        write_private(state.path, (json.dumps(data, indent=2) + "\n").encode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{state.path}: cannot save labdeck's state: {exc.strerror or exc}") from None
