"""The names in the issues view's filter bar: labels, users and milestones completed as they are typed
(`label:bu` -> `label:bug`, from the group in the Group field, users from the instance), and a check, once
a filter is applied, that the names it relies on exist: `no user called nosuchuser: no issue can match`
under the bar instead of a silent empty list. Both use the session's one completion source, so the check
costs no request for a name just completed. Labels and milestones are checked only where GitLab lists them
for the scope (a group; the instance has no such list) and the list can be complete. `compiled` turns the
bar's text into a listing's parameters, or shows why it cannot under the bar (both issue lists use it).
"""

from __future__ import annotations

import asyncio
from typing import Any

from rich.text import Text
from textual.screen import Screen
from textual.widgets import Input, Static

from labdeck.api.completion import Scope
from labdeck.api.errors import LabdeckError
from labdeck.api.issue_scopes import GroupId, ProjectScope, listing_scope, names_scope
from labdeck.domain.completion import filter_slot, names_in, unknown_text
from labdeck.domain.issue_query import QueryError, parse
from labdeck.tui.context import context_of
from labdeck.tui.widgets.completion import CompletingInput
from labdeck.tui.workers import is_live

SCOPE_FIELD = "#issues-scope"
MESSAGE = "#issues-query-error"
UNKNOWN = "-unknown-names"  # the screen's class while the line under the bar names unknown names


def group_scope(screen: Screen[Any]) -> Scope:
    """The group typed in the Group field (None: the whole instance)."""
    fields = screen.query(SCOPE_FIELD)
    typed = fields.first(Input).value.strip() if fields else ""
    return names_scope(listing_scope(typed))


def filter_input(screen: Screen[Any], value: str, **kwargs: Any) -> CompletingInput:
    """The filter bar: an `Input` completing the names of the filter language's values."""
    return CompletingInput(value, find_slot=filter_slot, quoting="filter", scope=lambda: group_scope(screen),
                           **kwargs)


def check_names(screen: Screen[Any], text: str, group: GroupId | None) -> None:
    """Check, in the background, the names the applied filter `text` relies on in `group` (None: the
    instance); unknown ones are said under the bar. A newer check replaces this one."""
    screen.remove_class(UNKNOWN)
    screen.run_worker(_check(screen, text, group), group="issues-names", exclusive=True, exit_on_error=False)


async def unknown_names(screen: Screen[Any], text: str, group: GroupId | None) -> str | None:
    """The sentence naming what `text` relies on that the instance does not have (None: nothing known to
    be missing)."""
    try:
        named = names_in(parse(text))
        source = context_of(screen).services.completion
    except (QueryError, LabdeckError):
        return None
    if not named:
        return None
    scope: Scope = names_scope(group)
    answers = await asyncio.gather(*(source.exists(n.kind, n.name, scope) for n in named))
    missing = [n for n, known in zip(named, answers, strict=True) if known is False]
    where = group.project if isinstance(group, ProjectScope) else group
    return unknown_text(missing, str(where or "the instance")) if missing else None


async def _check(screen: Screen[Any], text: str, group: GroupId | None) -> None:
    message = await unknown_names(screen, text, group)
    if message is None or not is_live(screen):
        return
    screen.query_one(MESSAGE, Static).update(Text(message, style="yellow"))
    screen.add_class(UNKNOWN)


def compiled(error: Static, text: str, scope: GroupId | None) -> dict[str, Any] | None:
    """The listing parameters of the filter `text` for `scope`; on a `QueryError`, it is shown in `error`
    and None is returned (nothing is sent)."""
    from labdeck.api.issues import IssuesService

    try:
        params = IssuesService.compile_filter(text, scope)
    except QueryError as exc:
        error.update(Text(f"Filter error: {exc}", style="bold red"))
        return None
    error.update(Text(""))
    return params
