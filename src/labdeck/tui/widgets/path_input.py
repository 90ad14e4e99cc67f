"""`PathInput`: the field where an area asks for a project or group path (registry, deployments, the
issues view's group).

A GitLab path never holds a `:`, so in this field `:` is not typed: it opens the jump prompt, as it does
everywhere that is not a free-text editor. Typing `:registry` right after `:deployments` opened the area
once sent a request for project `:registry`.

The path is completed from the instance as it is typed (`CompletingInput`): projects and groups by path
(`kind="path"`), or groups only (`kind="group"`); `right` or `tab` accepts.
"""

from __future__ import annotations

from typing import Any

from labdeck.domain.completion import Kind, path_slot
from labdeck.tui.widgets.completion import CompletingInput

JUMP_CHARACTER = ":"


class PathInput(CompletingInput):
    """An `Input` for a project or group path; `:` goes to the jump prompt, never into the field."""

    def __init__(self, value: str = "", *, kind: Kind = "path", **kwargs: Any) -> None:
        super().__init__(value, find_slot=lambda text: path_slot(text, kind), **kwargs)

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == JUMP_CHARACTER:
            return False
        return super().check_consume_key(key, character)

    def insert_text_at_cursor(self, text: str) -> None:
        super().insert_text_at_cursor(text.replace(JUMP_CHARACTER, ""))
