"""CI/CD variables of groups and of the instance (GitLab's API docs, "CI variable"). The value never
shows in a repr (a masked value is hidden until the operator reveals it, see `shown_value`); a hidden
variable's value never comes back from GitLab at all (`value` is null), so it can never be revealed."""

from __future__ import annotations

from pydantic import Field

from labdeck.api.models.base import ApiModel

HIDDEN = "••••••••"
NEVER_SHOWN = "(hidden: never revealed)"


class CiVariable(ApiModel):
    key: str
    value: str | None = Field(default=None, repr=False)
    variable_type: str | None = None
    protected: bool | None = None
    masked: bool | None = None
    environment_scope: str | None = None  # group variables only
    description: str | None = None
    raw: bool | None = None  # a raw variable's value is not expanded ($OTHER stays as typed)
    hidden: bool | None = None  # masked and hidden: the value is never sent back (group, project)

    def shown_value(self, revealed: bool = False) -> str:
        """What the screen may show: masked values stay hidden until revealed; hidden ones always."""
        if self.hidden:
            return NEVER_SHOWN
        if self.masked and not revealed:
            return HIDDEN
        return self.value or ""
