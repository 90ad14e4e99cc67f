"""The members pane, one for every owner that has members (`Owner`: a project or a group): the direct
members, or with `i` everyone with access (direct and inherited), through `api/members.py`. `a` adds
members by id or username (the member form, with the levels the owner can give: no Owner on a project),
`e` changes a direct member's level or expiry, `x` removes a direct member once their username is typed.
The form, the write and the re-read after a lost answer are the owner's (`Owner.member_form`,
`change_member`, `member_applied`). A group's members have two more modes, offered only when the owner is
a group and the instance has the feature (Premium): `B` lists the billable members of a top-level group
(the whole hierarchy; `x` removes one from all of it) and `O` turns a direct member's override flag on or
off. The project view's and `:groups`' Members tabs are this pane. Server text is shown as
`rich.text.Text`, never markup. It reads and writes through the owner's methods and `ctx.services`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.errors import ApiError
from labdeck.api.members import MembersService
from labdeck.api.models.members import BillableMember, Member
from labdeck.domain.features import BILLABLE_MEMBERS, MEMBER_OVERRIDE
from labdeck.tui.capabilities import feature_reason, refused, unavailable
from labdeck.tui.clock import Today, today_of
from labdeck.tui.context import context_of
from labdeck.tui.jobs import counted
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.forms import FormScreen, Values
from labdeck.tui.kit.members import member_tab
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import OwnerPane
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.footer import LIST_KEYS, TAB_KEYS
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

GROUP_ONLY = frozenset({"toggle_billable", "toggle_override"})  # offered when the owner is a group


class MembersPane(OwnerPane, Widget):
    # the footer while this pane has focus, most useful first (`widgets.footer`)
    ACTIONS = (
        Shown("select"),
        Action("a", "add_member", "Add member", id="members.add", mutating=True, footer=True),
        Action("e", "edit_member", "Change level", id="members.edit", mutating=True, row=True, footer=True),
        Action("x", "remove_member", "Remove member", id="members.remove",
               mutating=True, row=True, footer=True),
        Action("i", "toggle_inherited", "Inherited", id="members.inherited", footer=True),
        Action("B", "toggle_billable", "Billable", id="members.billable",
               feature=BILLABLE_MEMBERS, footer=True),
        Action("O", "toggle_override", "Override", id="members.override",
               mutating=True, row=True, feature=MEMBER_OVERRIDE, footer=True),
        *shown(TAB_KEYS),
        Shown("toggle_tree"),
        Shown("fork"),
        *shown(LIST_KEYS),
    )
    DEFAULT_CSS = """
    MembersPane { height: 1fr; }
    MembersPane #members-scope { height: 1; padding: 0 1; }
    """

    def __init__(self, owner: Owner, *, today: Today | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = owner
        self.today: Today = today_of(self, today)
        self.inherited = False
        self.billable = False  # a group's billable members (the whole hierarchy) instead of its members
        self.overrides: set[int] = set()  # members whose override flag this pane turned on
        self.spec = member_tab(self.overrides)

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="members-scope")
        yield ResourceView(self.spec.columns, row_key=self.spec.row_key,
                           detail=self.spec.detail, empty_text=self.spec.empty, enter_opens_detail=True,
                           id="members-view")

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The group-only modes are not offered for a project's members."""
        if action in GROUP_ONLY and self.owner.kind != "groups":
            return False
        return super().check_action(action, parameters)

    @property
    def view(self) -> ResourceView:
        return self.query_one("#members-view", ResourceView)

    def on_mount(self) -> None:
        self.load()

    def reload(self) -> None:
        self.load(refresh=True)

    def show_owner(self, owner: Owner) -> None:
        """Show the members of another owner (another group chosen in `:groups`): the list mode is kept,
        but billable members only for a top-level group; the overrides turned on are forgotten."""
        self.owner = owner
        self.overrides.clear()
        if owner.nested:
            self.billable = False
        self.view.table.set_rows([])  # never the former owner's rows under this one's name
        self.load()

    def scope_text(self) -> str:
        if self.billable:
            return "billable members of the whole hierarchy (B: direct only)"
        return "direct and inherited members (i: direct only)" if self.inherited else \
            "direct members (i: with inherited)"

    @work(exclusive=True, group="members-pane")
    async def load(self, refresh: bool = False) -> None:
        owner, table = self.owner, self.view.table
        table.empty_text = self.spec.empty  # undo a former reason
        rows: list[Any] = []
        if self.billable and (missing := feature_reason(self.ctx, BILLABLE_MEMBERS)):
            # say why; send nothing
            table.empty_text = unavailable(self.ctx, BILLABLE_MEMBERS, missing)
        else:
            table.loading_more = True
            try:
                rows = await self.read(self.ctx.services.members, refresh)
            except ApiError as error:
                explained = refused(self.ctx, BILLABLE_MEMBERS, error) if self.billable else None
                if explained is None:
                    raise
                table.empty_text = explained
            finally:
                table.loading_more = False
        if owner != self.owner:  # another owner was chosen meanwhile: its own load shows it
            return
        self.query_one("#members-scope", Static).update(Text(self.scope_text(), style="dim"))
        table.set_rows(rows)
        self.mark_data_loaded()

    async def read(self, service: MembersService, refresh: bool) -> list[Any]:
        if self.billable:
            return list(await self.owner.billable_members(service, refresh=refresh))
        return list(await self.owner.members(service, inherited=self.inherited, refresh=refresh))

    # -- list modes -----------------------------------------------------------------------------------
    def action_toggle_inherited(self) -> None:
        self.inherited = not self.inherited
        self.billable = False
        self.notify("Members: " + ("direct and inherited" if self.inherited else "direct only"))
        self.load()

    def action_toggle_billable(self) -> None:
        if self.owner.nested and not self.billable:
            self.notify("Billable members are listed for top-level groups only", severity="warning")
            return
        self.billable = not self.billable
        self.inherited = False
        self.notify("Members: " + ("billable (the whole hierarchy)" if self.billable else "direct only"))
        self.load()

    @work(group="members-pane-change")
    async def action_toggle_override(self) -> None:
        """Turn the override flag of the direct member under the cursor on, or off when we turned it on."""
        row = self.view.table.cursor_row
        if not isinstance(row, Member):
            return
        if self.inherited or self.billable:
            self.notify("Override applies to direct members (press i or B to go back)", severity="warning")
            return
        turn_on = row.id not in self.overrides
        member = await self.owner.set_override(self.ctx.services.members, row.id, turn_on)
        if member.override:
            self.overrides.add(row.id)
        else:
            self.overrides.discard(row.id)
        self.notify(f"Override {'on' if member.override else 'off'} for {member.username}", markup=False)
        self.view.table.set_rows(list(self.view.table.rows))
        self.view.refresh_detail()

    # -- add, change, remove --------------------------------------------------------------------------
    def direct_member(self) -> Member | None:
        """The member under the cursor when it can be changed here (direct members only)."""
        row = self.view.table.cursor_row
        if not isinstance(row, Member):
            return None
        if self.inherited:
            self.notify("Change or remove direct members (press i to list them)", severity="warning")
            return None
        return row

    def action_add_member(self) -> None:
        if self.billable:
            self.notify("Billable members are not added here: add members, then they count",
                        severity="warning")
            return
        members = [row for row in self.view.table.rows if isinstance(row, Member)]
        self.open_member_form(self.owner.member_form(self.today(), members=members), None)

    def action_edit_member(self) -> None:
        row = self.direct_member()
        if row is not None:
            self.open_member_form(self.owner.member_form(self.today(), row), row)

    def open_member_form(self, form: FormScreen, row: Member | None) -> None:
        open_member_form(self, self.owner, form, row, lambda: self.load(refresh=True))

    def action_remove_member(self) -> None:
        cursor = self.view.table.cursor_row
        row = cursor if isinstance(cursor, BillableMember) else self.direct_member()
        if row is None:
            return

        def answered(yes: bool | None) -> None:
            if yes and row is not None:
                self.remove_member(row)

        self.app.push_screen(self.owner.remove_member_screen(row), answered)

    @work(group="members-pane-change")
    async def remove_member(self, row: Member | BillableMember) -> None:
        await remove_member(self, self.owner, row)
        self.load()


def open_member_form(opener: Widget, owner: Owner, form: FormScreen, row: Member | None,
                     reload: Callable[[], object], *, listed: Any = None) -> None:
    """The add (`row` None) or change form of `owner`'s members, opened over `opener` (a pane that lists
    them: this pane, the access review's), sending itself; after a lost answer it re-reads the members: are
    they there at that level and expiry? `reload` re-reads the opener's list after a change; `listed`: the
    row of the opener's list the form edits, when it is not `row` itself (the access review's grant)."""
    what = "edit" if row is not None else "add"
    members = context_of(opener).services.members

    async def write(values: Values) -> str:
        count = await owner.change_member(members, what, row, values)
        if row is not None:
            return f"Changed {row.username or row.id}"
        return f"Added {counted(count, 'member')}"

    def done(message: str | None) -> None:
        if message and is_live(opener):
            opener.notify(message, markup=False)
            reload()

    open_write_form(opener, form, write, verify=lambda values: owner.member_applied(members, row, values),
                    row=listed if listed is not None else row, done=done,
                    refresh=lambda: reload() if is_live(opener) else None)


async def remove_member(opener: Widget, owner: Owner, row: Member | BillableMember) -> None:
    """Remove `row` from `owner` (its confirmation typed already) and say so."""
    await owner.change_member(context_of(opener).services.members, "delete", row, {})
    notify_content(opener, Content.assemble("Removed ", row.username or str(row.id)))
