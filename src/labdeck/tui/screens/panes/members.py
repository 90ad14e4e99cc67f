"""The members pane, one for every owner that has members (`Owner`: a project or a group): the direct
members, or with `i` everyone with access (direct and inherited), through `api/members.py`. `a` adds
members by id or username (the member form, with the levels the owner can give: no Owner on a project),
`e` changes a direct member's level or expiry, `x` removes a direct member once their username is typed.
The form, the write and the re-read after a lost answer are the owner's (`Owner.member_form`,
`change_member`, `member_applied`), as in the `:groups` Members tab. The project view's Members tab is this
pane. Server text is shown as `rich.text.Text`, never markup.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.widget import Widget
from textual.widgets import Static

from labdeck.api.members import MembersService
from labdeck.api.models.members import Member
from labdeck.tui.context import context_of
from labdeck.tui.jobs import counted
from labdeck.tui.pane_policy import PanePolicy
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.groups.forms import FormScreen, Values
from labdeck.tui.screens.groups.tabs import member_tab
from labdeck.tui.screens.owner import Owner
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

Today = Callable[[], date]


class MembersPane(PanePolicy, Widget):
    # the footer while this pane has focus, most useful first (`widgets.footer`)
    FOOTER_ORDER = ("select", "add_member", "edit_member", "remove_member", "toggle_inherited", "next_tab",
                    "previous_tab", "fork", *LIST_KEYS)
    BINDINGS = [
        Binding("a", "add_member", "Add member", id="members.add"),
        Binding("e", "edit_member", "Change level", id="members.edit"),
        Binding("x", "remove_member", "Remove member", id="members.remove"),
        Binding("i", "toggle_inherited", "Inherited", id="members.inherited"),
    ]
    MUTATING_ACTIONS = frozenset({"add_member", "edit_member", "remove_member"})
    ROW_ACTIONS = frozenset({"edit_member", "remove_member"})
    DEFAULT_CSS = """
    MembersPane { height: 1fr; }
    MembersPane #members-scope { height: 1; padding: 0 1; }
    """

    def __init__(self, owner: Owner, *, today: Today | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.owner = owner
        self.today: Today = today or (lambda: datetime.now(UTC).date())
        self.inherited = False
        self.spec = member_tab()

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="members-scope")
        yield ResourceView(self.spec.columns, row_key=self.spec.row_key,
                           detail=self.spec.detail, empty_text=self.spec.empty, enter_opens_detail=True,
                           id="members-view")

    @property
    def view(self) -> ResourceView:
        return self.query_one("#members-view", ResourceView)

    @property
    def service(self) -> MembersService | None:
        session = context_of(self).session
        return session.services.members if session else None

    def on_mount(self) -> None:
        self.load()

    def reload(self) -> None:
        self.load(refresh=True)

    @work(exclusive=True, group="members-pane")
    async def load(self, refresh: bool = False) -> None:
        service = self.service
        if service is None:
            return
        members = await self.owner.members(service, inherited=self.inherited, refresh=refresh)
        scope = "direct and inherited members (i: direct only)" if self.inherited else \
            "direct members (i: with inherited)"
        self.query_one("#members-scope", Static).update(Text(scope, style="dim"))
        self.view.table.set_rows(members)

    def action_toggle_inherited(self) -> None:
        self.inherited = not self.inherited
        self.load()

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
        self.open_member_form(self.owner.member_form(self.today()), None)

    def action_edit_member(self) -> None:
        row = self.direct_member()
        if row is not None:
            self.open_member_form(self.owner.member_form(self.today(), row), row)

    def open_member_form(self, form: FormScreen, row: Member | None) -> None:
        """The add (`row` None) or change form, sending itself; after a lost answer it re-reads the
        members: are they there at that level and expiry?"""
        service, owner = self.service, self.owner
        if service is None:
            return

        async def write(values: Values) -> str:
            count = await owner.change_member(service, "edit" if row is not None else "add", row, values)
            if row is not None:
                return f"Changed {row.username or row.id}"
            return f"Added {counted(count, 'member')}"

        def done(message: str | None) -> None:
            if message and is_live(self):
                self.notify(message, markup=False)
                self.load(refresh=True)

        open_write_form(self, form, write, verify=lambda values: owner.member_applied(service, row, values),
                        done=done, refresh=lambda: self.load(refresh=True) if is_live(self) else None)

    def action_remove_member(self) -> None:
        row = self.direct_member()
        if row is None:
            return
        name = row.username or str(row.id)
        message = Content.from_markup("Remove [b]$user[/b] from [b]$where[/b]?", user=name,
                                      where=self.owner.where)
        screen = TypeToConfirmScreen("Remove member", message, name, confirm_label="Remove")

        def answered(yes: bool | None) -> None:
            if yes:
                self.remove_member(row)

        self.app.push_screen(screen, answered)

    @work(group="members-pane-change")
    async def remove_member(self, row: Member) -> None:
        service = self.service
        if service is None:
            return
        await self.owner.change_member(service, "delete", row, {})
        notify_content(self, Content.assemble("Removed ", row.username or str(row.id)))
        self.load()
