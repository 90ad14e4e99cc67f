"""The project view's Members tab: the project's direct members, or with `i` everyone with access (direct
and inherited from its groups), through `api/members.py`. `a` adds members by id or username (the groups'
member form, project levels: no Owner), `e` changes a direct member's level or expiry, `x` removes a direct
member once their username is typed. Server text is shown as `rich.text.Text`, never markup.
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

from labdeck.api.members import MembersService, Source
from labdeck.api.models.members import Member
from labdeck.api.models.projects import Project
from labdeck.tui.jobs import counted
from labdeck.tui.pane_policy import PanePolicy
from labdeck.tui.screens.confirm import TypeToConfirmScreen
from labdeck.tui.screens.groups.applied import members_hold
from labdeck.tui.screens.groups.forms import FormScreen, Values, member_form, parse_user_refs
from labdeck.tui.screens.groups.tabs import member_tab
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.workers import is_live
from labdeck.tui.writes import open_write_form

Today = Callable[[], date]


def members_service(widget: Widget) -> MembersService | None:
    session = getattr(widget.app, "session", None)
    return session.services.members if session else None


class MembersTab(PanePolicy, Widget):
    # the footer while this tab has focus, most useful first (`widgets.footer`)
    FOOTER_ORDER = ("select", "add_member", "edit_member", "remove_member", "toggle_inherited", "next_tab",
                   "previous_tab", "fork", *LIST_KEYS)
    BINDINGS = [
        Binding("a", "add_member", "Add member", id="project_members.add"),
        Binding("e", "edit_member", "Change level", id="project_members.edit"),
        Binding("x", "remove_member", "Remove member", id="project_members.remove"),
        Binding("i", "toggle_inherited", "Inherited", id="project_members.inherited"),
    ]
    MUTATING_ACTIONS = frozenset({"add_member", "edit_member", "remove_member"})
    ROW_ACTIONS = frozenset({"edit_member", "remove_member"})
    DEFAULT_CSS = """
    MembersTab { height: 1fr; }
    MembersTab #members-scope { height: 1; padding: 0 1; }
    """

    def __init__(self, project: Project, *, today: Today | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.project = project
        self.today: Today = today or (lambda: datetime.now(UTC).date())
        self.inherited = False
        self.spec = member_tab()

    @property
    def source(self) -> Source:
        return ("projects", self.project.id)

    def compose(self) -> ComposeResult:
        yield Static("", markup=False, id="members-scope")
        yield ResourceView(self.spec.columns, cells=self.spec.cells, row_key=self.spec.row_key,
                           detail=self.spec.detail, empty_text=self.spec.empty, enter_opens_detail=True,
                           id="members-view")

    @property
    def view(self) -> ResourceView:
        return self.query_one("#members-view", ResourceView)

    def on_mount(self) -> None:
        self.load()

    def reload(self) -> None:
        self.load(refresh=True)

    @work(exclusive=True, group="project-members")
    async def load(self, refresh: bool = False) -> None:
        service = members_service(self)
        if service is None:
            return
        members = await service.list_members(self.source, inherited=self.inherited, refresh=refresh)
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
        self.open_member_form(member_form("projects", self.today()), None)

    def action_edit_member(self) -> None:
        row = self.direct_member()
        if row is None:
            return
        form = member_form("projects", self.today(), user_ids=row.username or str(row.id),
                           level=row.access_level or 30,
                           expires=row.expires_at.isoformat() if row.expires_at else "", editing=True)
        self.open_member_form(form, row)

    def open_member_form(self, form: FormScreen, row: Member | None) -> None:
        """The add (`row` None) or change form, sending itself; after a lost answer it re-reads the
        project's members: are they there at that level and expiry?"""
        service = members_service(self)
        if service is None:
            return
        source = self.source

        async def write(values: Values) -> str:
            ids = [row.id] if row is not None else \
                await service.user_ids_for(parse_user_refs(str(values["user_ids"])) or [])
            level, expires = int(values["access_level"]), self._expiry(values)
            if row is not None:
                await service.update_member(source, row.id, level, expires_at=expires)
                return f"Changed {row.username or row.id}"
            if len(ids) == 1:
                await service.add_member(source, ids[0], level, expires_at=expires)
            else:
                await service.add_members(source, ids, level, expires_at=expires)
            return f"Added {counted(len(ids), 'member')}"

        async def applied(values: Values) -> bool:
            refs = [row.id] if row is not None else (parse_user_refs(str(values["user_ids"])) or [])
            ids = await service.user_ids_for(refs)
            return members_hold(await service.list_members(source, refresh=True), ids, values)

        def done(message: str | None) -> None:
            if message and is_live(self):
                self.notify(message, markup=False)
                self.load(refresh=True)

        open_write_form(self, form, write, verify=applied, done=done,
                        refresh=lambda: self.load(refresh=True) if is_live(self) else None)

    def action_remove_member(self) -> None:
        row = self.direct_member()
        if row is None:
            return
        name = row.username or str(row.id)
        where = self.project.path_with_namespace or str(self.project.id)
        message = Content.from_markup("Remove [b]$user[/b] from [b]$project[/b]?", user=name, project=where)
        screen = TypeToConfirmScreen("Remove member", message, name, confirm_label="Remove")
        def answered(yes: bool | None) -> None:
            if yes:
                self.remove_member(row)

        self.app.push_screen(screen, answered)

    @staticmethod
    def _expiry(values: Values) -> date | None:
        text = str(values.get("expires_at") or "")
        return date.fromisoformat(text) if text else None

    @work(group="project-members-change")
    async def remove_member(self, row: Member) -> None:
        service = members_service(self)
        if service is None:
            return
        await service.remove_member(self.source, row.id)
        notify_content(self, Content.assemble("Removed ", row.username or str(row.id)))
        self.load()
