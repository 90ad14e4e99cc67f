"""Writing a file only its owner may read: mode 0600 from the first byte (`os.open` with the mode, under a
umask of 0o077), its folder 0700, atomically (a temp file in the same folder, fsynced, then `os.replace`d),
so a crash or a failing write leaves the old file intact and no other user ever sees a byte of it.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

PRIVATE_FILE = 0o600
PRIVATE_FOLDER = 0o700


def private_folder(folder: Path) -> None:
    """Create `folder` (and its parents) if missing; a folder labdeck creates gets 0700 (an existing one is
    left as the user set it up)."""
    if folder.is_dir():
        return
    old = os.umask(0o077)
    try:
        folder.mkdir(parents=True, mode=PRIVATE_FOLDER, exist_ok=True)
    finally:
        os.umask(old)
    folder.chmod(PRIVATE_FOLDER)


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


def write_private(target: Path, data: bytes, *, make_folder: bool = True) -> None:
    """Write `data` to `target` atomically, mode 0600 from creation; raises `OSError`. A symlinked target
    (dotfiles) is written through the link, which stays in place. A missing folder is created 0700, unless
    `make_folder=False` (a folder the user picked must exist)."""
    target = target.resolve() if target.is_symlink() else target
    folder = target.parent
    if make_folder:
        private_folder(folder)
    temp = folder / f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
        try:
            os.fchmod(fd, PRIVATE_FILE)
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        finally:
            os.close(fd)
        os.replace(temp, target)
    except OSError:
        with contextlib.suppress(OSError):
            temp.unlink()
        raise
    _fsync_dir(folder)
