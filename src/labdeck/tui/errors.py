"""How errors reach the user: API and network errors become short notifications; anything unexpected is
written to a crash log (traceback without local variables, token-like strings redacted) whose path is shown.
"""

from __future__ import annotations

import os
import time
import traceback
from collections.abc import Iterable
from pathlib import Path

from labdeck.api import errors as api_errors
from labdeck.api.errors import MAY_HAVE_APPLIED, AnswerLost, ApiError, LabdeckError, NetworkError
from labdeck.api.private_files import open_private, private_folder, write_new
from labdeck.domain.redaction import REDACTED, redact

__all__ = ["MAY_HAVE_APPLIED", "REDACTED", "add_to_crash_log", "describe_error", "format_crash",
           "is_expected", "lost_write", "may_have_applied", "redact", "unwrap", "write_crash_log"]


def unwrap(error: BaseException) -> BaseException:
    """The error a worker raised (Textual wraps it in `WorkerFailed`)."""
    inner = getattr(error, "error", None)
    if type(error).__name__ == "WorkerFailed" and isinstance(inner, BaseException):
        return inner
    return error


def is_expected(error: BaseException) -> bool:
    """API, network and other deliberate labdeck errors: shown as notifications, never as tracebacks."""
    return isinstance(unwrap(error), LabdeckError)


def may_have_applied(error: BaseException) -> bool:
    """`api.errors.may_have_applied` of the error a worker raised."""
    return api_errors.may_have_applied(unwrap(error))


def lost_write(error: BaseException) -> bool:
    """`api.errors.lost_write` of the error a worker raised."""
    return api_errors.lost_write(unwrap(error))


def describe_error(error: BaseException) -> str:
    """One line for a notification: "404 Project Not Found" (the status once), "400: status is missing",
    "Network error: ...", or a type name; a write whose answer was lost says "the server may have applied
    this"."""
    error = unwrap(error)
    text = _describe(error)
    if lost_write(error) and MAY_HAVE_APPLIED not in text:
        text = f"{text}: {MAY_HAVE_APPLIED}"
    return text


def _describe(error: BaseException) -> str:
    if isinstance(error, ApiError):
        return redact(error.status_line())
    if isinstance(error, AnswerLost):  # says itself what happened
        return redact(str(error))
    if isinstance(error, NetworkError):
        return redact(f"Network error: {error}" if str(error) else "Network error")
    if isinstance(error, LabdeckError):
        return redact(str(error) or type(error).__name__)
    return f"Unexpected error: {type(error).__name__}"


def crash_log_dir() -> Path:
    """Where crash logs go: `$LABDECK_STATE_DIR`, else the user state folder (XDG_STATE_HOME/labdeck/log)."""
    override = os.environ.get("LABDECK_STATE_DIR")
    if override:
        return Path(override)
    from platformdirs import user_log_path

    return user_log_path("labdeck", appauthor=False)


def format_crash(error: BaseException, secrets: Iterable[str] = ()) -> str:
    """A traceback without local variables, with token-like strings redacted."""
    lines = traceback.format_exception(type(error), error, error.__traceback__, chain=True)
    return redact("".join(lines), secrets)


def write_crash_log(error: BaseException, *, directory: Path | None = None,
                    secrets: Iterable[str] = ()) -> Path:
    """Write the crash report to a new 0600 file and return its path."""
    folder = directory or crash_log_dir()
    private_folder(folder, own=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    body = f"labdeck crash report {time.strftime('%Y-%m-%dT%H:%M:%S%z')}\n\n{format_crash(error, secrets)}"
    # a new file (never over an earlier report, never through a link), 0600 from the first byte
    return write_new(folder / f"crash-{stamp}-{os.getpid()}.log", body.encode("utf-8"))


def add_to_crash_log(path: Path, error: BaseException, *, secrets: Iterable[str] = ()) -> None:
    """Append a later error to the report of the first one (a crash can raise more while the app stops:
    a `DuplicateIds` from a half-torn screen must never replace the error that started it). The report is
    opened for appending never through a link (`open_private`)."""
    fd = open_private(path)
    with os.fdopen(fd, "a", encoding="utf-8") as handle:
        handle.write(f"\n\nA later error, after the first:\n\n{format_crash(error, secrets)}")
