"""`TextEditor`: the multi-line field of labdeck's forms, for comments and descriptions (Textual's
`TextArea`, wrapping long lines). Enter inserts a newline (the form's `ctrl+s` submits, escape cancels);
tab moves to the next field. Its host asks before closing over a changed text (`changed`; the rule is
`screens/confirm.DraftGuard`). A paste keeps every line, in order, its controls made visible (the paste fix
in `tui/textual_internals.py`). `ctrl+o` opens the text in `$VISUAL`/`$EDITOR` (`tui/external_editor.py`)
and puts what was saved back in the field, as one change that `ctrl+z` undoes; an editor that fails says
why and the text stays as it was.
"""

from __future__ import annotations

import os

from textual.binding import Binding
from textual.widgets import TextArea

from labdeck.tui.external_editor import EditorFailed, edit_externally


class TextEditor(TextArea):
    """A multi-line text field with `ctrl+o` to edit its text in the user's editor; `file_name` is the
    scratch file's name (its extension tells the editor the kind of text: `.md` for Markdown)."""

    DEFAULT_CSS = """
    TextEditor {
        height: 8;
    }
    """
    BINDINGS = [Binding("ctrl+o", "external_editor", "Editor", id="text_editor.external")]

    def __init__(self, text: str = "", *, file_name: str = "labdeck.md", placeholder: str = "",
                 id: str | None = None) -> None:
        super().__init__(text, soft_wrap=True, tab_behavior="focus", show_line_numbers=False,
                         placeholder=placeholder, id=id)
        self.file_name = file_name
        self.opened_with = text  # what unsaved changes are measured against (`confirm.DraftGuard`)

    @property
    def changed(self) -> bool:
        """The text differs from what the editor opened with (typed text that closing would lose)."""
        return self.text != self.opened_with

    def action_external_editor(self) -> None:
        try:
            edited = edit_externally(self.app, self.text, os.environ, name=self.file_name)
        except EditorFailed as failure:
            self.notify(str(failure), title="Editor", severity="error", markup=False, timeout=10)
            return
        if edited != self.text:
            self.replace(edited, (0, 0), self.document.end)  # one edit: ctrl+z brings the old text back
        self.move_cursor(self.document.end)
        self.focus()
