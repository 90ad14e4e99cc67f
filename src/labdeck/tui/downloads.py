"""Where downloads and exports are saved: the folder offered first (the last one used, else the user's
download folder), a missing folder created only after asking, and a name that never overwrites a file
(`acme_export (1).tar.gz`).

The last folder is kept for the session by `remember_download_dir`; `LAST_FOLDER_STORE` is the hook that
makes it last across sessions (labdeck's state file), never the user's config file.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from labdeck.api.errors import LabdeckError
from labdeck.api.private_files import write_private

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


def split_name(filename: str) -> tuple[str, str]:
    """`("acme_export", ".tar.gz")`: the extension is everything from the first dot after the start."""
    head, dot, tail = filename[1:].partition(".")
    if not dot:
        return filename, ""
    return filename[0] + head, "." + tail


def free_target(folder: Path, filename: str) -> Path:
    """`folder / filename`, or `name (1).ext`, `name (2).ext`, ... when that file already exists."""
    target = folder / filename
    stem, ext = split_name(filename)
    count = 1
    while target.exists():
        target = folder / f"{stem} ({count}){ext}"
        count += 1
    return target


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
            folder.mkdir(parents=True, exist_ok=True)
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


async def save_file(target: Path, payload: bytes) -> None:
    """Write a download (atomically, 0600: an export holds the group's data); `SaveError` with the path and
    the reason when the folder cannot be written."""
    try:
        await asyncio.to_thread(partial(write_private, target, payload, make_folder=False))
    except OSError as exc:
        raise SaveError(f"Cannot write {target}: {exc.strerror or exc}") from None


def safe_name(text: str) -> str:
    """`text` as a file name part (anything but letters, digits, `-_.` becomes `_`)."""
    return "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in text) or "group"
