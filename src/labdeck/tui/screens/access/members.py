"""`:access`'s Members tab: every grant of access in the scope (`domain.access_members.Grant`: the user, the
level, where, how: direct, inherited from a group above the scope, shared through a group), its expiry and
the user's flags (blocked, bot, external), read by `api/access_members.MembersReview`; the status line
counts the Owners of each group. Filters: `owner` (or any level: at least), `@user`, `expires:N`,
`path:P` (`domain/access_filters.py`).

A direct membership is changed through the kit's member forms, as the Members tab of its group or project
changes it (`kit/members_pane.open_member_form`, `remove_member`; journalled and undoable as every member
change is): `e` its level and expiry, `x` removes it once the username is typed. Changing an Owner's level
asks for the username to be typed first too. An inherited or shared grant is changed where it is given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.content import Content

from labdeck.api.access_scope import Unreadable
from labdeck.api.models.members import Member
from labdeck.domain.access_filters import parse_member_filter
from labdeck.domain.access_members import OWNER, Grant, MemberFilter
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.members_pane import open_member_form, remove_member
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import EVERY_LIST_FOOTER
from labdeck.tui.kit.tabs import TabSpec, day, detail_text
from labdeck.tui.screens.access.review import Heard, ReviewPane
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.widgets.table_columns import Column, plain_column

if TYPE_CHECKING:
    from labdeck.api.services import Services


def _level(grant: Grant) -> Text:
    return Text(grant.level, style="bold red" if grant.access_level >= OWNER else "")


def _detail(grant: Grant) -> Text:
    return detail_text(grant.username, [
        ("name", grant.name), ("user id", grant.user_id),
        ("access", f"{grant.level} ({grant.access_level})"), ("where", f"{grant.path} ({grant.kind})"),
        ("how", grant.via_text), ("expires", day(grant.expires_at)), ("flags", ", ".join(grant.flags))])


MEMBER_COLUMNS = [
    plain_column("user", "User", lambda g: g.username, min_width=10, priority=10, data=lambda g: g.username),
    Column("level", "Level", width=10, essential=True, text=_level, sort_key=lambda g: g.access_level,
           data=lambda g: g.level, extra_data=(("access_level", lambda g: g.access_level),)),
    plain_column("where", "Where", lambda g: g.path, min_width=12, priority=8, data=lambda g: g.path),
    plain_column("via", "How", lambda g: g.via_text, min_width=8, priority=2, data=lambda g: g.via),
    Column("expires", "Expires", width=10, text=lambda g: Text(day(g.expires_at)),
           data=lambda g: g.expires_at, priority=4),
    plain_column("flags", "Flags", lambda g: ", ".join(g.flags), min_width=5, style="yellow", priority=1,
                 data=lambda g: list(g.flags)),
]
MEMBER_SPEC = TabSpec(MEMBER_COLUMNS, lambda g: (g.user_id, g.path, g.via, g.source), _detail,
                      "No members in this scope")


def as_member(grant: Grant) -> Member:
    """A direct grant as the kit's member forms take it."""
    return Member(id=grant.user_id, username=grant.username, name=grant.name or None, state=grant.state,
                  access_level=grant.access_level, expires_at=grant.expires_at)


def grant_owner(grant: Grant) -> Owner:
    """The group or project where a direct grant is given, as the member forms' owner."""
    return Owner("groups" if grant.kind == "group" else "projects", grant.path, where=grant.path,
                 nested="/" in grant.path)


class AccessMembersPane(ReviewPane):
    FILTER_HINT = "filter: owner  @user  expires:7  path:group/sub"
    ACTIONS = (
        Shown("select"),
        Action("e", "edit_grant", "Change level", id="access.members.edit", mutating=True, row=True,
               footer=True),
        Action("x", "remove_grant", "Remove member", id="access.members.remove", mutating=True, row=True,
               footer=True),
        *shown(name for name in EVERY_LIST_FOOTER if name != "select"),
    )

    def __init__(self, owner: Owner, **kwargs: Any) -> None:
        super().__init__(owner, MEMBER_SPEC, id="access-members", **kwargs)
        self.owners: dict[str, int] = {}

    async def review(self, services: Services, scope: str | None, refresh: bool,
                     heard: Heard) -> tuple[list[Any], list[Unreadable]]:
        read = await services.access_members.review(scope, refresh=refresh, on_rows=heard)
        self.owners = read.owners
        return list(read.grants), read.unreadable

    def parse_filter(self, text: str) -> MemberFilter:
        return parse_member_filter(text)

    def matches(self, wanted: Any, row: Any) -> bool:
        return bool(wanted.matches(row, self.now().date()))

    def counts(self, rows: list[Any]) -> str:
        if not self.complete or not self.owners:
            return ""
        most = sorted(self.owners.items(), key=lambda item: (-item[1], item[0]))
        return "Owners: " + ", ".join(f"{path} {count}" for path, count in most)

    # -- actions --------------------------------------------------------------------------------------
    def direct(self) -> Grant | None:
        """The grant under the cursor when it is changed here (a direct one), else why not is said."""
        row = self.table.cursor_row
        if not isinstance(row, Grant):
            return None
        if row.via != "direct":
            self.notify(f"{row.username} has this access {row.via_text}: change it there",
                        severity="warning", markup=False)
            return None
        return row

    def action_edit_grant(self) -> None:
        grant = self.direct()
        if grant is None:
            return
        owner, member = grant_owner(grant), as_member(grant)

        def change() -> None:
            open_member_form(self, owner, owner.member_form(self.now().date(), member), member,
                             lambda: self.load(refresh=True), listed=grant)

        if grant.access_level < OWNER:
            change()
            return
        message = Content.from_markup("[b]$user[/b] is an Owner of [b]$where[/b]. Change their role or "
                                      "expiry?", user=grant.username, where=grant.path)
        self.app.push_screen(TypeToConfirmScreen("Change an Owner", message, grant.username,
                                                 confirm_label="Change"),
                             lambda yes: change() if yes else None)

    def action_remove_grant(self) -> None:
        grant = self.direct()
        if grant is None:
            return
        owner = grant_owner(grant)
        def answered(yes: bool | None) -> None:
            if yes:
                self.remove_grant(grant)

        self.app.push_screen(owner.remove_member_screen(as_member(grant)), answered)

    @work(group="access-members-change")
    async def remove_grant(self, grant: Grant) -> None:
        await remove_member(self, grant_owner(grant), as_member(grant))
        self.load(refresh=True)
