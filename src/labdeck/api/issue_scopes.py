"""Where an issue listing takes its issues: the whole instance (None), a group (its id or path) or one project
(`ProjectScope`), as typed in a Group box (`listing_scope`), and where the label and milestone names of that
scope live (`names_scope`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class ProjectScope:
    """The issues of one project (`GET /projects/:id/issues`), given where a listing takes its scope."""

    project: int | str

    def __str__(self) -> str:
        return f"project:{self.project}"


GroupId = int | str | ProjectScope  # a listing's scope: a group (id or path) or one project


def listing_scope(text: str) -> GroupId | None:
    """A scope as typed in a Group box: `project:<path>` is one project, other text a group's path, nothing
    the instance."""
    text = text.strip()
    if text.startswith("project:") and text.removeprefix("project:").strip():
        return ProjectScope(text.removeprefix("project:").strip())
    return text or None


def names_scope(group: GroupId | None) -> tuple[Literal["project", "group"], int | str] | None:
    """Where the label and milestone names of a listing's scope live (None: the instance has no list)."""
    if isinstance(group, ProjectScope):
        return ("project", group.project)
    return ("group", group) if group else None
