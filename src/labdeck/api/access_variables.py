"""The access review's Variables tab (issue 36): every CI/CD variable of the instance, the scope's groups and
its projects, as keys, scopes and flags (`domain.variable_precedence.Definition`), which definition wins
and what is found (`domain.variable_findings.reviewed`).

No variable's value is read into the review. GitLab's variable listings send each value
(`Entities::Ci::Variable`, `lib/api/entities/ci/variable.rb`), so the pages are read by `flag_rows`: the
fast path decodes only the model's declared fields (`VariableFlags` has no `value`: it is never built),
and the tolerant path drops `value` from each item before anything else holds it; the list cache keeps
those flags under a key of their own (the binding's `view`), never the Variables tab's entries, and never
on disk (a `variables` path). A key's value is not what a review is for: whether it is masked, protected,
hidden or raw, where it is defined and which definition wins.

Fan-out, cache, first rows and unreadable items as every review has them (`api/access_scope.py`); the
instance's variables are read for administrators (anyone else's 403 names the instance as unreadable).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from labdeck.api import bindings as b
from labdeck.api import body
from labdeck.api.access_scope import INSTANCE, Item, OnRows, Place, Scope, Unreadable, fan_out, read_scope
from labdeck.api.client import ApiClient
from labdeck.api.models.access import VariableFlags
from labdeck.api.models.fast_lists import fast_decoder
from labdeck.domain.variable_findings import VariableRow, reviewed
from labdeck.domain.variable_precedence import WILDCARD, Definition, Level


def _without_value(items: Any) -> Any:
    if not isinstance(items, list):
        return items
    return [{k: v for k, v in item.items() if k != "value"} if isinstance(item, dict) else item
            for item in items]


def flag_rows() -> body.PageDecode:
    """How a variables page becomes `VariableFlags`: from the bytes (the value never decoded), or decoded
    with each item's `value` dropped at once, for the tolerant path."""
    fast = fast_decoder(VariableFlags)

    def decode(content: bytes, what: str) -> Any:
        rows = fast.decode(content) if fast is not None else None
        return _without_value(body.clean_items(content, what)) if rows is None else rows
    return decode


def definition_of(flags: VariableFlags, level: Level, path: str, order: int) -> Definition:
    return Definition(flags.key, level, path, (flags.environment_scope or WILDCARD).strip() or WILDCARD,
                      bool(flags.protected), bool(flags.masked or flags.hidden), bool(flags.hidden),
                      bool(flags.raw), flags.variable_type or "env_var", order)


@dataclass
class VariablesRead:
    """The review: each definition with whether it wins and its findings (instance first, then groups and
    projects by path), the items that could not be read, and the scope."""

    rows: list[VariableRow]
    unreadable: list[Unreadable]
    scope: Scope
    items: int = 0


class VariablesReview:
    """Reads the Variables tab of a group scope or of the instance."""

    def __init__(self, client: ApiClient) -> None:
        self.client = client

    def _item(self, level: Level, place: Place | None, refresh: bool) -> Item[Definition]:
        async def read() -> list[Definition]:
            if place is None:
                found = await b.INSTANCE_VARIABLE_FLAGS.read(self.client, refresh=refresh, decode=flag_rows())
            else:
                binding = b.GROUP_VARIABLE_FLAGS if place.kind == "group" else b.PROJECT_VARIABLE_FLAGS
                found = await binding.read(self.client, place.path, refresh=refresh, decode=flag_rows())
            path = "" if place is None else place.path
            return [definition_of(flags, level, path, order) for order, flags in enumerate(found)]
        return (INSTANCE if place is None else place.path), "variables", read

    async def review(self, root: str | None, *, refresh: bool = False,
                     on_rows: OnRows[Definition] | None = None) -> VariablesRead:
        """Every definition of `root` (a group's full path) or of the instance (None). `on_rows` hears the
        definitions as each item's arrive (whether they win is known once all are read)."""
        scope = await read_scope(self.client, root, refresh=refresh, shares=False)
        items = [self._item("instance", None, refresh),
                 *(self._item("group", g, refresh) for g in scope.groups),
                 *(self._item("project", p, refresh) for p in scope.projects)]
        read = await fan_out(self.client, items, on_rows=on_rows)
        rows = reviewed(read.rows, [p.path for p in scope.projects])
        return VariablesRead(rows, read.unreadable, scope, read.items)
