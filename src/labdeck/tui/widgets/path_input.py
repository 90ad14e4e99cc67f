"""`PathInput`: the field where an area asks for a project or group path (registry, deployments).

A GitLab path never holds a `:`, so in this field `:` is not typed: it opens the jump prompt, as it does
everywhere that is not a free-text editor. Typing `:registry` right after `:deployments` opened the area
once sent a request for project `:registry`.
"""

from __future__ import annotations

from textual.widgets import Input

JUMP_CHARACTER = ":"


class PathInput(Input):
    """An `Input` for a project or group path; `:` goes to the jump prompt, never into the field."""

    def check_consume_key(self, key: str, character: str | None) -> bool:
        if character == JUMP_CHARACTER:
            return False
        return super().check_consume_key(key, character)

    def insert_text_at_cursor(self, text: str) -> None:
        super().insert_text_at_cursor(text.replace(JUMP_CHARACTER, ""))
