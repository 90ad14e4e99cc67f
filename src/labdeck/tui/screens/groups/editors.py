"""How the rows of a `:groups` tab are added, edited and deleted, declared per tab (`TabEditor`): its noun,
its add and edit forms, the confirmation of a delete, the write, and the re-read that says whether a write
whose answer was lost was applied. A tab's entry in `tab_list.GROUP_TABS` names its editor; the screen's
actions (`actions.py`) read only these facts, never the tab's name.

The member and variable writes are owner-parameterised (`members_change`, `ci_variables.change_variable`):
the project view's Members tab and the instance variables screen send through the same functions.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date
from typing import TYPE_CHECKING, Any

from textual.content import Content

from labdeck.api.members import MembersService, Source
from labdeck.api.models.badges import Badge
from labdeck.api.models.labels import GroupLabel
from labdeck.api.models.members import BillableMember, Member
from labdeck.api.models.variables import CiVariable
from labdeck.tui.screens.ci_variables import change_variable, delete_variable_screen
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.groups.applied import badge_holds, labels_hold, members_hold, variables_hold
from labdeck.tui.screens.groups.forms import (
    FormScreen,
    Values,
    badge_form,
    label_form,
    member_form,
    parse_user_refs,
)
from labdeck.tui.screens.groups.forms import variable_form as _variable_form

if TYPE_CHECKING:
    from labdeck.api.services import Services
    from labdeck.tui.screens.groups.actions import GroupActions

@dataclass(frozen=True)
class TabEditor:
    """The add, edit and delete of one tab's rows. `change(services, group id, what, row, values)` sends
    "add" (row None), "edit" or "delete" and returns how many items it acted on; `applied(services, group
    id, row, values)` re-reads the tab after a lost answer; `refuse_add(screen)` says why adding is not
    offered in the tab's current state (None: it is)."""

    noun: str
    add_form: Callable[[GroupActions], FormScreen]
    edit_form: Callable[[GroupActions, Any], FormScreen | None]
    confirm_delete: Callable[[Any, str], ConfirmScreen]
    change: Callable[[Services, int, str, Any, Values], Awaitable[int]]
    applied: Callable[[Services, int, Any, Values], Awaitable[bool]]
    refuse_add: Callable[[GroupActions], str | None] = lambda screen: None


# -- members (of any source: a group or a project) -------------------------------------------------------
def _expiry(values: Values) -> date | None:
    text = str(values.get("expires_at") or "")
    return date.fromisoformat(text) if text else None


async def members_change(service: MembersService, source: Source, what: str, row: Any,
                         values: Values) -> int:
    """Add (row None: every user the form names), change or remove a member of `source`; how many."""
    if isinstance(row, BillableMember):
        await service.remove_billable_member(source[1], row.id)
    elif what == "delete":
        await service.remove_member(source, row.id)
    elif what == "edit":
        await service.update_member(source, row.id, int(values["access_level"]), expires_at=_expiry(values))
    else:
        ids = await service.user_ids_for(parse_user_refs(str(values["user_ids"])) or [])
        level, expires = int(values["access_level"]), _expiry(values)
        if len(ids) == 1:
            await service.add_member(source, ids[0], level, expires_at=expires)
        else:
            await service.add_members(source, ids, level, expires_at=expires)
        return len(ids)
    return 1


async def members_applied(service: MembersService, source: Source, row: Any, values: Values) -> bool:
    """Re-read the members of `source`: are the users of the form (or `row`) there at its level and expiry?"""
    refs = [row.id] if row is not None else (parse_user_refs(str(values["user_ids"])) or [])
    ids = await service.user_ids_for(refs)
    return members_hold(await service.list_members(source, refresh=True), ids, values)


def member_edit_form(kind: str, today: date, row: Any) -> FormScreen | None:
    if not isinstance(row, Member):
        return None
    who = (row.username or str(row.id)) if kind == "projects" else str(row.id)
    return member_form(kind, today, user_ids=who, level=row.access_level or 30,
                       expires=row.expires_at.isoformat() if row.expires_at else "", editing=True)


def _member_delete(row: Any, where: str) -> ConfirmScreen:
    name = row.username or str(row.id)
    if isinstance(row, BillableMember):
        message = Content.from_markup("Remove [b]$user[/b] from [b]$group[/b], all its subgroups and "
                                      "projects?", user=name, group=where)
        return TypeToConfirmScreen("Remove billable member", message, name, confirm_label="Remove")
    message = Content.from_markup("Remove [b]$user[/b] from [b]$group[/b]?", user=name, group=where)
    return TypeToConfirmScreen("Remove member", message, name, confirm_label="Remove")


MEMBERS = TabEditor(
    "member",
    add_form=lambda screen: member_form("groups", screen.today()),
    edit_form=lambda screen, row: member_edit_form("groups", screen.today(), row),
    confirm_delete=_member_delete,
    change=lambda services, ref, what, row, values: members_change(services.members, ("groups", ref), what,
                                                                   row, values),
    applied=lambda services, ref, row, values: members_applied(services.members, ("groups", ref), row,
                                                               values),
    refuse_add=lambda screen: "Billable members are not added here: add members, then they count"
    if screen.billable_members else None,
)


# -- labels ---------------------------------------------------------------------------------------------
def _plain_delete(noun: str) -> Callable[[Any, str], ConfirmScreen]:
    def confirm(row: Any, where: str) -> ConfirmScreen:
        name = row.name if isinstance(row, GroupLabel) else (row.name or f"{noun} {row.id}")
        return ConfirmScreen(f"Delete {noun}", Content.from_markup(
            "Delete [b]$name[/b] of [b]$group[/b]?", name=name, group=where), confirm_label="Delete")
    return confirm


async def _label_change(services: Services, ref: int, what: str, row: Any, values: Values) -> int:
    labels = services.labels
    if what == "delete":
        await labels.delete_label(ref, row.id)
    elif what == "add":
        await labels.create_label(ref, values["name"], values["color"], values.get("description") or None)
    else:
        new_name = values["name"] if values["name"] != row.name else None
        await labels.update_label(ref, row.id, new_name=new_name, color=values["color"],
                                  description=values.get("description", ""))
    return 1


async def _labels_applied(services: Services, ref: int, row: Any, values: Values) -> bool:
    return labels_hold(await services.labels.list_labels(ref, refresh=True), values)


LABELS = TabEditor(
    "label", add_form=lambda screen: label_form(),
    edit_form=lambda screen, row: label_form(row) if isinstance(row, GroupLabel) else None,
    confirm_delete=_plain_delete("label"), change=_label_change, applied=_labels_applied)


# -- badges ---------------------------------------------------------------------------------------------
async def _badge_change(services: Services, ref: int, what: str, row: Any, values: Values) -> int:
    badges = services.badges
    if what == "delete":
        await badges.delete_badge(ref, row.id)
    elif what == "add":
        await badges.create_badge(ref, values["link_url"], values["image_url"],
                                  name=values.get("name") or None)
    else:
        await badges.update_badge(ref, row.id, link_url=values["link_url"], image_url=values["image_url"],
                                  name=values.get("name") or None)
    return 1


async def _badges_applied(services: Services, ref: int, row: Any, values: Values) -> bool:
    if row is not None:
        return badge_holds(await services.badges.get_badge(ref, row.id), values)
    return any(badge_holds(b, values) for b in await services.badges.list_badges(ref, refresh=True))


def _badge_edit_form(screen: GroupActions, row: Any) -> FormScreen | None:
    if not isinstance(row, Badge):
        return None
    return badge_form(row.name or "", row.link_url or "", row.image_url or "", editing=True,
                      render=screen.badge_renderer())


BADGES = TabEditor(
    "badge", add_form=lambda screen: badge_form(render=screen.badge_renderer()), edit_form=_badge_edit_form,
    confirm_delete=_plain_delete("badge"), change=_badge_change, applied=_badges_applied)


# -- variables ------------------------------------------------------------------------------------------
async def _variable_change(services: Services, ref: int, what: str, row: Any, values: Values) -> int:
    await change_variable(services.variables, ("groups", ref), what, row, values)
    return 1


async def _variables_applied(services: Services, ref: int, row: Any, values: Values) -> bool:
    key = row.key if row is not None else str(values["key"])
    scope = str(values.get("environment_scope") or "*")
    return variables_hold(await services.variables.group_variables(ref, refresh=True), values, key=key,
                          scope=scope, before=row)


VARIABLES = TabEditor(
    "variable", add_form=lambda screen: _variable_form(scoped=screen.variables_scoped()),
    edit_form=lambda screen, row: _variable_form(row, scoped=screen.variables_scoped())
    if isinstance(row, CiVariable) else None,
    confirm_delete=delete_variable_screen, change=_variable_change, applied=_variables_applied)
