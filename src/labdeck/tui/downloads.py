"""Where downloads and exports are saved: the folder offered first (the last one used, else the user's
download folder), a missing folder created only after asking (0700), and a name that never overwrites a file
(`acme_export (1).tar.gz`; the file itself is made by `labdeck.api.private_files.write_new`: 0600, never
through a symbolic link).

The last folder is kept for the session by `remember_download_dir`; `LAST_FOLDER_STORE` is the hook that
makes it last across sessions (labdeck's state file), never the user's config file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labdeck.api.errors import LabdeckError
from labdeck.api.private_files import UnsafeFile, private_folder, write_new

if TYPE_CHECKING:
    from textual.app import App


class _Store:
    """The last folder used: in memory unless `load`/`save` are wired to a state file."""

    def __init__(self) -> None:
        self.folder: Path | None = None
        self.load: Callable[[], str | None] | None = None
        self.save: Callable[[str], None] | None = None


LAST_FOLDER_STORE = _Store()


def last_download_dir() -> Path | None:
    store = LAST_FOLDER_STORE
    if store.folder is None and store.load is not None:
        try:
            saved = store.load()
        except Exception:  # a broken state file must not stop an export
            saved = None
        store.folder = Path(saved) if saved else None
    return store.folder


def remember_download_dir(folder: Path) -> None:
    store = LAST_FOLDER_STORE
    store.folder = folder
    if store.save is not None:
        try:
            store.save(str(folder))
        except Exception:  # remembering is a convenience: the export itself went fine
            pass


def default_download_dir() -> Path:
    """The folder offered first: the last one used, else `platformdirs.user_downloads_path()`."""
    last = last_download_dir()
    if last is not None:
        return last
    import platformdirs

    return platformdirs.user_downloads_path()


def ensure_folder(app: App[Any], folder: Path, then: Callable[[Path], Any]) -> None:
    """Call `then(folder)` once `folder` exists: a missing one is created after the user agrees (and a
    refusal or a failure to create it is said, nothing saved)."""
    if folder.is_dir():
        remember_download_dir(folder)
        then(folder)
        return
    if folder.exists():
        app.notify(f"{folder} is not a folder", severity="error", markup=False)
        return
    from textual.content import Content

    from labdeck.tui.screens.confirm import ConfirmScreen

    def answered(create: bool | None) -> None:
        if not create:
            return
        try:
            private_folder(folder, own=False)  # created 0700
        except OSError as error:
            app.notify(f"Cannot create {folder}: {error.strerror or error}", severity="error", markup=False)
            return
        remember_download_dir(folder)
        then(folder)

    app.push_screen(ConfirmScreen("Create the folder?", Content.assemble(
        "This folder does not exist yet:\n", (str(folder), "bold")), confirm_label="Create", danger=False),
        answered)


class SaveError(LabdeckError):
    """A download that could not be written where the user asked."""


async def save_file(target: Path, payload: bytes) -> Path:
    """Write a download to a new file at `target`, or its first free name `name (1).ext`, ...; returns the
    path written. Created 0600 with `O_EXCL | O_NOFOLLOW` (an export holds the group's data): never over a
    file, never through a symbolic link (a link at the name, dangling or not, is refused). `SaveError` with
    the path and the reason when it cannot be written."""
    try:
        return await asyncio.to_thread(write_new, target, payload)
    except UnsafeFile as exc:
        raise SaveError(str(exc)) from None
    except OSError as exc:
        raise SaveError(f"Cannot write {target}: {exc.strerror or exc}") from None


def safe_name(text: str) -> str:
    """`text` as a file name part (anything but letters, digits, `-_.` becomes `_`)."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text) or "group"
