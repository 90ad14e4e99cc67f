"""Every file labdeck creates, in one place: only its owner may read it, from the first byte.

- A new file is created with `O_CREAT | O_EXCL | O_NOFOLLOW`, mode 0600 (`create_private`, `create_unique`,
  `write_new`): never over an existing file, never through a symbolic link (a link at the target, dangling
  or not, is refused with `UnsafeFile`, not followed).
- A file labdeck rewrites (the state file, the tag cache) is written atomically (`write_private`: a temp file
  created as above in the same folder, fsynced, then `os.replace`d, which replaces a link rather than
  writing through it), so a crash or a failing write leaves the old file intact.
- A file labdeck keeps open or appends to (the journal, the SQLite cache) is opened with `O_NOFOLLOW`
  (`open_private`): it must be a regular file, and a wider mode found there is tightened to 0600.
- A file handed to another program for a moment (the text of a comment, for the user's editor) is a
  scratch file (`write_scratch`): 0600 in a new 0700 folder of its own under the temporary folder;
  `remove_scratch` deletes both.
- A folder labdeck creates is 0700 (`private_folder`); one of labdeck's own folders found wider is tightened
  to 0700 (refused with a clear message when it is another user's and open to writes). A folder the user
  chose (downloads, an override without `labdeck` in its path) is never chmod-ed.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import tempfile
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW


class UnsafeFile(OSError):
    """A path labdeck refuses to write: a symbolic link, not a regular file, or a folder it cannot make
    private. `str(error)` is the message for the user."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


def _link_refused(path: Path) -> UnsafeFile:
    return UnsafeFile(f"{path} is a symbolic link: labdeck never writes through one (remove it or choose "
                      "another name)")


def is_labdecks(folder: Path) -> bool:
    """A folder of labdeck's own: one with a `labdeck` component (the default cache, state, config and log
    folders are `.../labdeck[/...]`). Others (an override, a download folder) belong to the user."""
    return any(part.lower() == "labdeck" for part in folder.parts)


def private_folder(folder: Path, *, own: bool | None = None) -> None:
    """Create `folder` (and its parents) if missing, 0700. An existing folder of labdeck's own (`own`, by
    default `is_labdecks(folder)`) with a wider mode is tightened to 0700, or refused (`UnsafeFile`) when it
    is not the user's and others may write to it. A folder the user chose is never chmod-ed (files in it are
    still created exclusively, 0600, never through a link)."""
    if not folder.is_dir():
        old = os.umask(0o077)
        try:
            folder.mkdir(parents=True, mode=PRIVATE_FOLDER, exist_ok=True)
        finally:
            os.umask(old)
        folder.chmod(PRIVATE_FOLDER)
        return
    if not (is_labdecks(folder) if own is None else own):
        return
    info = folder.stat()
    mode = stat.S_IMODE(info.st_mode)
    if not mode & 0o077:
        return
    if info.st_uid == os.geteuid():
        folder.chmod(PRIVATE_FOLDER)
    elif mode & 0o022 and not info.st_mode & stat.S_ISVTX:
        raise UnsafeFile(f"{folder} may be written by other users (mode {mode:04o}) and is not yours: "
                         "labdeck will not keep its files there")


def create_private(path: Path) -> int:
    """A new file at `path`, 0600, open for writing (a descriptor). `FileExistsError` when anything is there;
    `UnsafeFile` when that is a symbolic link."""
    try:
        fd = os.open(path, _CREATE, PRIVATE_FILE)
    except FileExistsError:
        if path.is_symlink():
            raise _link_refused(path) from None
        raise
    os.fchmod(fd, PRIVATE_FILE)  # 0600 whatever the umask
    return fd


def open_private(path: Path, flags: int = os.O_WRONLY | os.O_APPEND) -> int:
    """Open (creating if missing) a file labdeck keeps, never through a link; a wider mode is tightened to
    0600, and anything but a regular file of the user's is refused (`UnsafeFile`)."""
    try:
        fd = os.open(path, flags | os.O_CREAT | _NOFOLLOW, PRIVATE_FILE)
    except OSError as error:
        if error.errno == errno.ELOOP or path.is_symlink():
            raise _link_refused(path) from None
        raise
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_uid != os.geteuid():
            raise UnsafeFile(f"{path} is not a regular file of yours: labdeck will not write to it")
        if stat.S_IMODE(info.st_mode) & 0o077:
            os.fchmod(fd, PRIVATE_FILE)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_all(fd: int, data: bytes) -> None:
    with os.fdopen(fd, "wb", closefd=False) as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some filesystems cannot fsync a directory; the replace itself is still atomic
    finally:
        os.close(fd)


def write_private(target: Path, data: bytes, *, make_folder: bool = True, own_folder: bool | None = None,
                  follow_link: bool = False) -> None:
    """Rewrite `target` atomically with `data`, mode 0600 from creation; raises `OSError`. A missing folder
    is created 0700 (see `private_folder` for `own_folder`), unless `make_folder=False`. A symbolic link at
    `target` is refused (`UnsafeFile`); only `follow_link=True` (the user's config file, which may live in a
    dotfiles folder) writes the link's target instead, leaving the link in place."""
    if target.is_symlink():
        if not follow_link:
            raise _link_refused(target)
        target = target.resolve()
    folder = target.parent
    if make_folder:
        private_folder(folder, own=own_folder)
    temp = folder / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = create_private(temp)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_dir(folder)


def split_name(filename: str) -> tuple[str, str]:
    """`("acme_export", ".tar.gz")`: the extension is everything from the first dot after the start."""
    head, dot, tail = filename[1:].partition(".")
    if not dot:
        return filename, ""
    return filename[0] + head, "." + tail


def numbered(wanted: Path, count: int) -> Path:
    """`wanted`, or `name (count).ext` for count >= 1."""
    if count == 0:
        return wanted
    stem, ext = split_name(wanted.name)
    return wanted.parent / f"{stem} ({count}){ext}"


def create_unique(wanted: Path, *, limit: int = 10_000) -> tuple[Path, int]:
    """Create `wanted`, or the first free `name (1).ext`, `name (2).ext`, ... (0600, exclusively: two exports
    at once never meet, an existing file is never overwritten); returns the path and a descriptor open for
    writing. A symbolic link at any name tried is refused (`UnsafeFile`), never followed or skipped."""
    for count in range(limit):
        path = numbered(wanted, count)
        try:
            return path, create_private(path)
        except FileExistsError:
            continue
    raise UnsafeFile(f"{wanted}: no free name after {limit} tries")


def write_new(wanted: Path, data: bytes) -> Path:
    """Write `data` to a new file at `wanted` (or its first free numbered name, see `create_unique`), fsynced;
    a failed write removes the partial file. Returns the path written."""
    path, fd = create_unique(wanted)
    try:
        _write_all(fd, data)
    except BaseException:
        os.close(fd)
        with contextlib.suppress(OSError):
            path.unlink()
        raise
    os.close(fd)
    return path


def write_scratch(name: str, data: bytes) -> Path:
    """A new file `name` holding `data`, 0600, in a new folder of its own (0700, under the temporary folder)
    that no other user can enter: for another program to read and change (the user's editor). Delete it
    with `remove_scratch`."""
    folder = Path(tempfile.mkdtemp(prefix="labdeck-"))
    try:
        private_folder(folder, own=True)
        path = folder / name
        fd = create_private(path)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
    except BaseException:
        remove_scratch(folder / name)
        raise
    return path


def remove_scratch(path: Path) -> None:
    """Delete a scratch file and its folder (what is already gone is fine; an editor's leftovers there, a
    swap or backup file, go too)."""
    folder = path.parent
    if not folder.name.startswith("labdeck-"):
        return
    for leftover in list(folder.iterdir()) if folder.is_dir() else []:
        with contextlib.suppress(OSError):
            leftover.unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
