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
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.dom import DOMNode
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
UNKNOWN = "-unknown-names"  # the class of the bar's screen or tab while the line under it names unknown names


def group_scope(screen: Screen[Any]) -> GroupId | None:
    """The scope typed in the Group field of `:issues` (None: the whole instance)."""
    fields = screen.query(SCOPE_FIELD)
    typed = fields.first(Input).value.strip() if fields else ""
    return listing_scope(typed)


def filter_input(scope: Callable[[], GroupId | None], value: str, **kwargs: Any) -> CompletingInput:
    """A filter bar: an `Input` completing the names of the filter language's values in `scope()` (the
    group or project whose labels and milestones count; users from the instance)."""
    return CompletingInput(value, find_slot=filter_slot, quoting="filter",
                           scope=lambda: names_scope(scope()), **kwargs)


def check_names(node: DOMNode, text: str, group: GroupId | None, message: Static) -> None:
    """Check, in the background, the names the applied filter `text` relies on in `group` (None: the
    instance); unknown ones are said in `message` (under the bar) and `node` (the screen or tab holding the
    bar) gets the class `-unknown-names` meanwhile. A newer check replaces this one."""
    node.remove_class(UNKNOWN)
    node.run_worker(_check(node, text, group, message), group="issues-names", exclusive=True,
                    exit_on_error=False)


async def unknown_names(node: DOMNode, text: str, group: GroupId | None) -> str | None:
    """The sentence naming what `text` relies on that the instance does not have (None: nothing known to
    be missing)."""
    try:
        named = names_in(parse(text))
        source = context_of(node).services.completion
    except (QueryError, LabdeckError):
        return None
    if not named:
        return None
    scope: Scope = names_scope(group)
    answers = await asyncio.gather(*(source.exists(n.kind, n.name, scope) for n in named))
    missing = [n for n, known in zip(named, answers, strict=True) if known is False]
    where = group.project if isinstance(group, ProjectScope) else group
    return unknown_text(missing, str(where or "the instance")) if missing else None


async def _check(node: DOMNode, text: str, group: GroupId | None, message: Static) -> None:
    said = await unknown_names(node, text, group)
    if said is None or not is_live(node):
        return
    message.update(Text(said, style="yellow"))
    node.add_class(UNKNOWN)


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
