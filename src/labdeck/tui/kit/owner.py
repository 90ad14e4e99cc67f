"""Whose resources a pane shows: a group, a project or the instance (`Owner`: its kind, its id or path, and
the path named in messages); every kit pane has one (`kit/panes.OwnerPane`). For members and CI/CD
variables, the owner also maps to the service methods of its kind: the members and variables panes,
wherever they are shown, read, write and re-read through these, so a rule about members or variables
lives here once, whatever the owner.

It may use the members' and variables' forms and rules (`kit/members.py`, `kit/variables.py`) and the
services it is given; it holds no session.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal

from textual.content import Content

from labdeck.api.errors import NotFound
from labdeck.api.members import MembersService, Source
from labdeck.api.models.groups import Group
from labdeck.api.models.members import BillableMember, Member
from labdeck.api.models.projects import Project
from labdeck.api.models.variables import CiVariable
from labdeck.api.request_log import expecting
from labdeck.api.variables import VariablesService
from labdeck.domain.journal_rules import SECRET_VARIABLE
from labdeck.tui.kit.forms import FormScreen, Values
from labdeck.tui.kit.members import member_form, members_hold, parse_user_refs
from labdeck.tui.kit.variables import change_variable, delete_variable_screen, variable_form, variable_options
from labdeck.tui.screens.confirm import TypeToConfirmScreen

OwnerKind = Literal["groups", "projects", "instance"]


def _expiry(values: Values) -> date | None:
    text = str(values.get("expires_at") or "")
    return date.fromisoformat(text) if text else None


@dataclass(frozen=True)
class Owner:
    """A group (`"groups"`), a project (`"projects"`) or the instance (`"instance"`, no `ref`)."""

    kind: OwnerKind
    ref: int | str | None = None
    where: str = ""  # the path named in confirmations and status lines
    nested: bool = False  # a subgroup (billable members are listed for top-level groups only)

    @property
    def source(self) -> Source:
        """The owner as the members and variables services name a group or project."""
        if self.kind == "instance" or self.ref is None:
            raise ValueError("the instance has no members and no owner path")
        return (self.kind, self.ref)

    @property
    def noun(self) -> str:
        return {"groups": "group", "projects": "project", "instance": "instance"}[self.kind]

    # -- variables ------------------------------------------------------------------------------------
    @property
    def forbidden_hint(self) -> str:
        """What a 403 on its variables means."""
        return {"groups": "group variables need the Maintainer role",
                "projects": "project variables need the Maintainer role",
                "instance": "instance variables are for administrators"}[self.kind]

    @property
    def no_variables(self) -> str:
        return "No instance variables" if self.kind == "instance" else "No variables"

    async def variables(self, service: VariablesService, *, refresh: bool = False) -> list[CiVariable]:
        if self.kind == "instance":
            return await service.instance_variables(refresh=refresh)
        return await service.variables(self.source, refresh=refresh)

    async def change_variable(self, service: VariablesService, what: str, row: CiVariable | None,
                              values: Values) -> None:
        """Send "add" (row None), "edit" or "delete" for a variable of this owner."""
        if self.kind != "instance":
            await change_variable(service, self.source, what, row, values)
            return
        options: dict[str, Any] = variable_options(values, row) if what != "delete" else {}
        if what == "add":
            await service.create_instance_variable(values["key"], values["value"], **options)
        elif what == "edit" and row is not None:
            await service.update_instance_variable(row.key, values["value"], **options)
        elif row is not None:
            await service.delete_instance_variable(row.key)

    async def variable(self, service: VariablesService, key: str, scope: str | None) -> CiVariable | None:
        """The variable `key` (of `scope`, where the owner's variables have scopes), read again, or None
        when there is none: what a form checks after a lost answer (one request, not the whole list)."""
        try:
            with expecting({404}, "read again after a lost answer: not there"):
                if self.kind == "instance":
                    return await service.instance_variable(key)
                return await service.variable(self.source, key, environment_scope=scope)
        except NotFound:
            return None

    def variable_form(self, row: CiVariable | None, *, scoped: bool) -> FormScreen:
        """The add (`row` None) or edit form; `scoped`: the owner's variables have environment scopes
        here (never the instance's; a group's only where the edition has them)."""
        if self.kind == "instance":
            return variable_form(row, instance=True)
        return variable_form(row, scoped=scoped)

    def delete_variable_screen(self, row: CiVariable) -> TypeToConfirmScreen:
        """Delete `row` once its key is typed (a masked or hidden value is said to be gone for good)."""
        if self.kind != "instance":
            return delete_variable_screen(row, self.where)
        message = Content.from_markup("Delete the instance variable [b]$key[/b]? Every pipeline of the "
                                      "instance loses it.", key=row.key)
        return TypeToConfirmScreen("Delete instance variable", message, row.key, confirm_label="Delete",
                                   irreversible=SECRET_VARIABLE if row.masked else None)

    # -- members --------------------------------------------------------------------------------------
    async def members(self, service: MembersService, *, inherited: bool = False,
                      refresh: bool = False) -> list[Member]:
        return await service.list_members(self.source, inherited=inherited, refresh=refresh)

    async def billable_members(self, service: MembersService, *,
                               refresh: bool = False) -> list[BillableMember]:
        """A top-level group's billable members (the whole hierarchy), by name."""
        return await service.billable_members(self.source[1], sort="name_asc", refresh=refresh)

    async def set_override(self, service: MembersService, user_id: int, enabled: bool) -> Member:
        """Turn a group member's override flag on or off."""
        return await service.set_override(self.source[1], user_id, enabled)

    def remove_member_screen(self, row: Member | BillableMember) -> TypeToConfirmScreen:
        """Remove `row` once its username is typed (a billable member leaves the whole hierarchy)."""
        name = row.username or str(row.id)
        if isinstance(row, BillableMember):
            message = Content.from_markup("Remove [b]$user[/b] from [b]$where[/b], all its subgroups and "
                                          "projects?", user=name, where=self.where)
            return TypeToConfirmScreen("Remove billable member", message, name, confirm_label="Remove")
        message = Content.from_markup("Remove [b]$user[/b] from [b]$where[/b]?", user=name, where=self.where)
        return TypeToConfirmScreen("Remove member", message, name, confirm_label="Remove")

    async def change_member(self, service: MembersService, what: str, row: Any, values: Values) -> int:
        """Add (row None: every user the form names), change or remove a member; how many it acted on."""
        if isinstance(row, BillableMember):
            await service.remove_billable_member(self.source[1], row.id)
        elif what == "delete":
            await service.remove_member(self.source, row.id)
        elif what == "edit":
            await service.update_member(self.source, row.id, int(values["access_level"]),
                                        expires_at=_expiry(values))
        else:
            ids = await service.user_ids_for(parse_user_refs(str(values["user_ids"])) or [])
            level, expires = int(values["access_level"]), _expiry(values)
            if len(ids) == 1:
                await service.add_member(self.source, ids[0], level, expires_at=expires)
            else:
                await service.add_members(self.source, ids, level, expires_at=expires)
            return len(ids)
        return 1

    async def member_applied(self, service: MembersService, row: Any, values: Values) -> bool:
        """Re-read the members: are the users of the form (or `row`) there at its level and expiry?"""
        refs = [row.id] if row is not None else (parse_user_refs(str(values["user_ids"])) or [])
        ids = await service.user_ids_for(refs)
        return members_hold(await service.list_members(self.source, refresh=True), ids, values)

    def member_form(self, today: date, row: Member | None = None, *,
                    members: Sequence[Member] = ()) -> FormScreen:
        """The add (`row` None) or change form, with the levels this owner can give; `members` (the list
        shown) lets the add form say whose role it would replace."""
        if row is None:
            return member_form(self.kind, today, members=members)
        who = (row.username or str(row.id)) if self.kind == "projects" else str(row.id)
        return member_form(self.kind, today, user_ids=who, level=row.access_level or 30,
                           expires=row.expires_at.isoformat() if row.expires_at else "", editing=True)


INSTANCE = Owner("instance", where="the instance")


def group_owner(group: Group) -> Owner:
    """A group as the owner of its members and variables."""
    return Owner("groups", group.id, group.full_path or group.name or str(group.id),
                 nested=group.parent_id is not None)


def project_owner(project: Project) -> Owner:
    """A project as the owner of its members and variables."""
    return Owner("projects", project.id, project.path_with_namespace or str(project.id))
