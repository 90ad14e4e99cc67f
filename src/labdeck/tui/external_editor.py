"""Editing a text in the user's own editor (`ctrl+o` in a `TextEditor`), as git and glab do.

The editor is `$VISUAL`, else `$EDITOR`, else `vi`; the setting may carry arguments (`code --wait`,
`emacsclient -t`), split as a shell would (`shlex`). The text goes to a scratch file (`api.private_files`:
0600 in a 0700 folder of its own), the app hands the terminal over (`App.suspend`), the editor runs, and the
file is read back and deleted. An editor that cannot be started, or that exits with an error status, leaves
the text as it was and says why (`EditorFailed`), as git does ("there was a problem with the editor").
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping
from typing import Any

from textual.app import App, SuspendNotSupported

from labdeck.api.private_files import remove_scratch, write_scratch
from labdeck.domain.text import typed_text

FALLBACK = "vi"


class EditorFailed(Exception):
    """The editor could not edit the text (the text is kept); `str(error)` is the message for the user."""


def editor_command(environ: Mapping[str, str]) -> tuple[list[str], str]:
    """The editor's command line and where it came from: `$VISUAL`, else `$EDITOR`, else `vi`. A setting that
    is empty or cannot be split (an open quote) is passed over, as if it were not set."""
    for name in ("VISUAL", "EDITOR"):
        try:
            words = shlex.split(environ.get(name, ""))
        except ValueError:
            continue
        if words:
            return words, f"${name}"
    return [FALLBACK], "the default, as neither $VISUAL nor $EDITOR is set"


def _run(app: App[Any], command: list[str]) -> int:
    """Run `command` with the terminal handed over; its exit status."""
    try:
        with app.suspend():
            return subprocess.run(command, check=False).returncode
    except SuspendNotSupported:
        if not app.is_headless:
            raise EditorFailed("This terminal cannot be handed over to an editor: the text is kept") from None
    # no terminal at all (a headless run): the editor runs without one
    return subprocess.run(command, check=False, stdin=subprocess.DEVNULL, capture_output=True).returncode


def edit_externally(app: App[Any], text: str, environ: Mapping[str, str], *, name: str = "labdeck.md") -> str:
    """`text` as the user left it in their editor (line ends LF, controls made visible); `EditorFailed`
    when the editor could not be started or failed, the text then being unchanged. One final newline the
    editor adds (vi always does) is taken off again when `text` had none."""
    command, source = editor_command(environ)
    try:
        path = write_scratch(name, text.encode("utf-8"))
    except OSError as error:
        raise EditorFailed(f"Could not write the text for the editor: {error}") from None
    try:
        try:
            status = _run(app, [*command, str(path)])
        except OSError as error:  # not found, not executable
            reason = error.strerror or str(error)
            raise EditorFailed(f"The editor {command[0]!r} ({source}) could not be started: {reason}. "
                               "Set $VISUAL or $EDITOR; the text is kept") from None
        if status != 0:
            raise EditorFailed(f"The editor {command[0]!r} ({source}) exited with status {status}: "
                               "the text is kept as it was")
        try:
            edited = path.read_bytes().decode("utf-8", errors="replace")
        except OSError as error:
            raise EditorFailed(f"The edited text could not be read back ({error}): "
                               "the text is kept") from None
    finally:
        remove_scratch(path)
    if not text.endswith("\n") and edited.endswith("\n"):
        edited = edited[:-1]
    return typed_text(edited)
