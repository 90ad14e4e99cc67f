"""The forms of the groups view that name a file or folder on this machine: where to save a download
(`folder_form`, checked by `folder_error`) and the export file a group import reads (`import_form`).
"""

from __future__ import annotations

import os
from pathlib import Path

from textual.content import Content

from labdeck.domain.digits import parse_digits, wide_digit_problem
from labdeck.tui.kit.forms import Field, FormScreen, Values, required


def folder_error(text: str) -> str | None:
    """Why a download folder cannot be used (not a folder, not writable), or None. A missing folder is
    fine when it can be created (the user is asked first: `tui.downloads.ensure_folder`)."""
    if not text.strip():
        return "required"
    folder = Path(text.strip()).expanduser()
    if not folder.exists():
        parent = next((p for p in folder.parents if p.exists()), None)
        if parent is None or not parent.is_dir() or not os.access(parent, os.W_OK | os.X_OK):
            return f"no such folder, and it cannot be created: {folder}"
        return None
    if not folder.is_dir():
        return f"not a folder: {folder}"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in {folder}"
    return None


def folder_form(what: str, folder: Path) -> FormScreen:
    """Ask where to save a download, prefilled with `folder` (values: `folder`)."""
    fields = [Field("folder", "Save in the folder", str(folder), "~/Downloads")]

    def validate(values: Values) -> dict[str, str]:
        problem = folder_error(str(values.get("folder", "")))
        return {"folder": problem} if problem else {}

    return FormScreen(Content.assemble("Save ", what), fields, validate, submit_label="Save")


def import_form(parent_id: int | None = None) -> FormScreen:
    fields = [Field("name", "Group name", ""), Field("path", "Group path", ""),
              Field("file", "Export file (.tar.gz)", "", "~/Downloads/acme_export.tar.gz"),
              Field("parent_id", "Parent group id (empty: a top-level group)",
                    str(parent_id) if parent_id else "")]

    def validate(values: Values) -> dict[str, str]:
        errors = required(values, "name", "path", "file")
        if "file" not in errors and not Path(str(values["file"])).expanduser().is_file():
            errors["file"] = "no such file"
        parent = str(values.get("parent_id") or "")
        if parent and parse_digits(parent) is None:
            errors["parent_id"] = wide_digit_problem(parent) or "a group id (a number)"
        return errors

    return FormScreen("Import a group", fields, validate, submit_label="Import")
