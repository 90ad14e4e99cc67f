"""`:users`, user moderation for administrators: every user of the instance in a `ResourceView`, filtered
by condition (tabs: active, pending approval, blocked, banned, deactivated, dormant) and by a server-side
search; `m` moderates the user under the cursor, or every marked user as a bulk job in the job centre.

Only the operations that the domain rules (`labdeck.domain.moderation`) allow are offered: the menu
(`moderation.py`) and the detail pane show the others disabled, with the reason. Ban and reject ask for the
username (or the number of users, in bulk) to be typed; a bulk confirmation names the users
(`tui/bulk.confirm_bulk`). Non-administrators see a notice instead of the list; a 403 that
still happens is shown as a notification with the server's message.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import Final

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.widgets import Input, Static, Tab, Tabs

from labdeck.api import changes_seen
from labdeck.api.models.moderation import Condition, ModeratedUser
from labdeck.domain.journal_rules import NO_INVERSE_USER_OPS
from labdeck.domain.moderation import Operation, self_lockout
from labdeck.domain.text import status_line
from labdeck.tui.areas import AreaRequest
from labdeck.tui.bulk import BulkAction, BulkQuestion, confirm_bulk, refresh_lists, show_in_place, start_bulk
from labdeck.tui.clock import Today, today_of
from labdeck.tui.jobs import Job, counted
from labdeck.tui.list_feed import EarlyWindow, ListFeed
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.screens.scope_choice import Scope, choose_scope
from labdeck.tui.screens.users.moderation import GENTLE, TYPED, Availability, OperationMenu, operations_text
from labdeck.tui.widgets.detail_fields import append_fields
from labdeck.tui.widgets.footer import LIST_KEYS
from labdeck.tui.widgets.labelled import LabelledField
from labdeck.tui.widgets.resource_table import ResourceTable
from labdeck.tui.widgets.resource_view import ResourceView
from labdeck.tui.widgets.table_columns import Column, plain_column
from labdeck.tui.workers import app_running

# Tab id -> condition (None: every user), in tab order.
TABS: Final[dict[str, Condition | None]] = {
    "all": None, "active": Condition.ACTIVE, "pending": Condition.PENDING, "blocked": Condition.BLOCKED,
    "banned": Condition.BANNED, "deactivated": Condition.DEACTIVATED, "dormant": Condition.DORMANT,
}
# Columns the server can order a partial listing by (`order_by` of GET /users).
SERVER_ORDERS: Final = {"username": "username", "name": "name", "created": "created_at",
                        "activity": "last_activity_on"}


def user_columns(today: date) -> list[Column]:
    """The users list's columns (a user's state is told as of `today`); unstyled, so the list builds its
    cells only for the rows it draws (100,000 users load at once). At 80 columns: username (the key, whole up
    to 30 cells: a bot's `project_12_bot_<32 hex>` is cut, and whole in the detail), state (essential), last
    activity and name (the detail's heading, when the list is narrower)."""
    return [
        plain_column("username", "Username", lambda u: u.username or str(u.id), min_width=14, max_width=30,
                     priority=10, data=lambda u: u.username),
        plain_column("name", "Name", lambda u: u.name or "", min_width=12, priority=6, data=lambda u: u.name),
        plain_column("state", "State", lambda u: u.state_label(today), min_width=16, priority=8,
                     essential=True,
                     data=lambda u: u.state,  # GitLab's word; the label's other facts as their own fields
                     extra_data=(("dormant", lambda u: u.is_dormant(today)),
                                 ("internal", lambda u: u.internal))),
        plain_column("activity", "Last activity",
                     lambda u: u.last_activity_on.isoformat() if u.last_activity_on else "never", width=13,
                     priority=7, data=lambda u: u.last_activity_on),
        plain_column("created", "Created",
                     lambda u: u.created_at.strftime("%Y-%m-%d") if u.created_at else "", width=10,
                     priority=3, data=lambda u: u.created_at),
        # never written in clear to an export file
        plain_column("email", "Email", lambda u: u.email or "", exported=False, priority=4),
    ]


class UsersScreen(LabdeckScreen):
    FOOTER_PANES = {
        "users-view": ("select", "moderate", "toggle_mark", "next_condition", "search", "previous_condition",
                       *LIST_KEYS),
        "users-conditions": ("next_condition", "previous_condition", "search", "moderate"),
        "": ("search", "next_condition"),
    }
    AREA = "users"
    TITLE = "Users"
    CSS_PATH = "users.tcss"
    MUTATING_ACTIONS = frozenset({"moderate"})
    ROW_ACTIONS = frozenset({"moderate"})
    PALETTE_EXTRA = (("Approve, block, ban, deactivate a user (moderate)", "moderate"),)
    BINDINGS = [
        Binding("m", "moderate", "Moderate", id="users.moderate"),
        Binding("f", "search", "Search", id="users.search"),
        Binding("c", "next_condition", "Condition", id="users.next_condition"),
        Binding("C", "previous_condition", "Previous condition", show=False, id="users.previous_condition"),
    ]

    feed: ListFeed[ModeratedUser]  # set on mount: the listing read on demand

    def __init__(self, request: AreaRequest | None = None, *, today: Today | None = None) -> None:
        super().__init__()
        self.today = today_of(self, today)
        self.search = (request.query or "").strip() if request else ""
        self.first_tab = (request.scope or "all") if request and request.scope in TABS else "all"
        self.condition: Condition | None = TABS[self.first_tab]  # the overview opens a condition
        self.all_users: list[ModeratedUser] = []
        self.denied = False
        self._early: EarlyWindow[ModeratedUser] | None = None
        if app_running():  # built inside the app: page 1 is asked for before the widgets exist
            self._start_early_load()

    def _start_early_load(self) -> None:
        session = self.ctx.session
        if session is None or session.user is None or not session.user.is_admin:
            return  # not known to be an administrator yet: the load asks first
        service = self.ctx.services.users
        if service.cached_users(search=self.search or None) is None:
            self._early = EarlyWindow(service.window(search=self.search or None, keyset=True),
                                      (self.search, None))

    def on_unmount(self) -> None:
        if self._early is not None:
            self._early.cancel()

    def compose_body(self) -> ComposeResult:
        yield Static("", markup=False, id="users-denied")
        with Horizontal(id="users-bar"):
            tabs = [Tab(key.capitalize() if c is None else str(c).capitalize(), id=f"users-tab-{key}")
                    for key, c in TABS.items()]
            yield Tabs(*tabs, active=f"users-tab-{self.first_tab}", id="users-conditions")
            yield LabelledField("Search", Input(self.search, placeholder="name, email", id="users-search"),
                                id="users-search-field")
        yield ResourceView(user_columns(self.today()), row_key=lambda u: u.id,
                           detail=self.user_detail, show_detail=True, empty_text="No users",
                           enter_opens_detail=True, id="users-view")

    @property
    def table(self) -> ResourceTable:
        return self.query_one("#users-view", ResourceView).table

    def on_mount(self) -> None:
        self.table.focus()
        self.feed = ListFeed(self.query_one("#users-view", ResourceView), "users", self.reload_from_server,
                             orders=SERVER_ORDERS)
        self.feed.keep = self.in_condition
        self.load_users(refresh=False)

    def refresh_data(self) -> None:
        self.load_users(refresh=True, order=self.feed.order)  # a partial list's server-side sort stays

    # -- loading --------------------------------------------------------------------------------------
    @work(exclusive=True, group="users")
    async def load_users(self, refresh: bool = False, order: tuple[str, bool] | None = None) -> None:
        """Every user when the instance has few (cached, filtered by condition here); else the first page
        at once and the rest on demand (`tui/list_feed.py`), searched and sorted by the server."""
        me = await self.ctx.user()
        if not me.is_admin:
            self.show_denied(me.username)
            return
        service = self.ctx.services.users
        search = self.search or None
        hit = None if refresh or order is not None else service.cached_users(search=search)
        if hit is not None and hit[1]:
            self.all_users = hit[0]
            self.feed.whole()
            self.apply_condition()
            self.mark_data_loaded()
            return
        self.table.loading_more = True
        early, self._early = self._early, None
        try:
            order_by, descending = order or ("id", False)
            taken = early.take((self.search, order)) if early is not None and not refresh else None
            if early is not None and taken is None:
                early.cancel()
            window, first = taken or (service.window(search=search, keyset=True, order_by=order_by,
                                                     sort="desc" if descending else "asc"), None)
            self.feed.show_cached(window)  # a relaunch: the first page last seen, at once
            rows = await (first or window.start())
            self.feed.show_first(window, rows, search=self.search, order=order)
            if await self.feed.complete_if_small(window) and order is None:
                service.remember(window, search=search)
        finally:
            self.table.loading_more = False
        self.all_users = []
        self.query_one("#users-view", ResourceView).refresh_detail()
        self.mark_data_loaded()

    def reload_from_server(self, search: str, order: tuple[str, bool] | None) -> None:
        """A partial list's filter box (the server's search, as the search box) or sort."""
        self.search = search
        self.query_one("#users-search", Input).value = search
        self.load_users(refresh=True, order=order)

    def on_resource_table_load_more(self, event: ResourceTable.LoadMore) -> None:
        event.stop()
        self.feed.read_more()

    def on_resource_table_row_highlighted(self, event: ResourceTable.RowHighlighted) -> None:
        self.feed.cursor_moved()

    def show_denied(self, username: str) -> None:
        self.denied = True
        notice = self.query_one("#users-denied", Static)
        notice.update(Text(f"User moderation needs an administrator; {username} is not one.", style="bold"))
        self.add_class("-denied")
        self.refresh_bindings()

    def in_condition(self, user: ModeratedUser) -> bool:
        """The user is in the condition of the tab shown (every user on "All")."""
        return self.condition is None or self.condition in user.conditions(self.today())

    def apply_condition(self) -> None:
        """The tab's condition over the rows read (all of them on a complete list, else those read so far,
        and the count says how many are shown of them)."""
        if self.feed.window is not None:
            self.feed.show_held()
        else:
            self.table.set_rows([u for u in self.all_users if self.in_condition(u)])
        self.query_one("#users-view", ResourceView).refresh_detail()

    # -- detail ---------------------------------------------------------------------------------------
    def caller_id(self, user: ModeratedUser) -> int | None:
        session = self.ctx.session
        me = session.user if session else None
        return user.id if me is not None and me.username == user.username else None

    def availability(self, user: ModeratedUser) -> list[Availability]:
        return [(row.op, row.enabled, row.reason)
                for row in user.operations(self.today(), caller_id=self.caller_id(user))]

    def user_detail(self, user: ModeratedUser) -> Text:
        today = self.today()
        detail = append_fields(Text(user.name or user.username or str(user.id), style="bold"), (
            ("username", user.username or ""), ("id", str(user.id)), ("state", user.state_label(today)),
            ("email", user.email or ""), ("last activity", str(user.last_activity_on or "never")),
            ("type", user.user_type or ""), ("admin", "yes" if user.is_admin else "")), width=13)
        detail.append("\n\nOperations", style="bold")
        rows = self.availability(user)
        detail.append_text(operations_text(rows) if rows else Text("\n  none (unknown state)", style="dim"))
        return detail

    # -- filters --------------------------------------------------------------------------------------
    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        key = (event.tab.id or "").removeprefix("users-tab-")
        self.condition = TABS.get(key)
        if self.is_mounted and not self.denied:
            self.apply_condition()

    def _step_condition(self, step: int) -> None:
        # Step from the tab bar's own active tab, not `self.condition`: that only changes when TabActivated
        # arrives, so several quick presses would otherwise all step from the same tab.
        tabs = self.query_one("#users-conditions", Tabs)
        keys = list(TABS)
        current = (tabs.active or "users-tab-all").removeprefix("users-tab-")
        current = current if current in keys else "all"
        target = keys[(keys.index(current) + step) % len(keys)]
        tabs.active = f"users-tab-{target}"

    def action_next_condition(self) -> None:
        self._step_condition(1)

    def action_previous_condition(self) -> None:
        self._step_condition(-1)

    def action_search(self) -> None:
        self.query_one("#users-search", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id != "users-search":
            return
        event.stop()
        self.search = event.value.strip()
        self.table.focus()
        self.load_users(refresh=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("moderate", "search", "next_condition", "previous_condition") and self.denied:
            return False
        return super().check_action(action, parameters)

    # -- moderation -----------------------------------------------------------------------------------
    def action_moderate(self) -> None:
        marked = [u for u in self.table.marked_rows if isinstance(u, ModeratedUser)]
        if marked:  # a partial list: the marked users, or all matching (read first)
            choose_scope(self, self.table, marked, "marked", "Moderate",
                         lambda scope: self.choose_bulk(list(scope.rows), scope))
            return
        user = self.table.cursor_row
        if isinstance(user, ModeratedUser):
            self.choose_single(user)

    def choose_single(self, user: ModeratedUser) -> None:
        name = user.username or str(user.id)
        title = Text(f"Moderate {name} ({user.state_label(self.today())})", style="bold")

        def chosen(op: Operation | None) -> None:
            if op is not None:
                self.confirm(op, name, f"{op.label.capitalize()} user",
                             Content.from_markup("$verb user [b]$name[/b]?", verb=op.label.capitalize(),
                                                 name=name),
                             lambda: self.run_single(user, op))

        self.app.push_screen(OperationMenu(title, self.availability(user)), chosen)

    def choose_bulk(self, users: list[ModeratedUser], scope: Scope[ModeratedUser] | None = None) -> None:
        allowed: dict[Operation, int] = dict.fromkeys(Operation, 0)
        for user in users:
            for op, enabled, _ in self.availability(user):
                allowed[op] += enabled
        total = len(users)
        rows: list[Availability] = [
            (op, count > 0, f"allowed for {count} of {total}" if count else "not allowed for any marked user")
            for op, count in allowed.items()]
        title = Text(f"Moderate {counted(total, 'marked user')}", style="bold")

        def chosen(op: Operation | None) -> None:
            if op is None:
                return
            action = self.bulk_action(users, op, scope)
            label = op.label.capitalize()
            everyone = scope is not None and scope.all_matching  # typed as such, never as "5 users"
            what = scope.text if everyone and scope is not None else counted(total, 'marked user')
            question = (f"{label} {what}{', read first' if everyone else ''}? Those the server refuses are "
                        "listed in the task's results.")
            count = "all matching users" if everyone else counted(total, "user")
            confirm_bulk(self, action, BulkQuestion(
                f"{label} {count}", question, label, danger=op not in GENTLE,
                typed=count if op in TYPED else None,
                irreversible=NO_INVERSE_USER_OPS.get(op.value)), table=self.table)

        self.app.push_screen(OperationMenu(title, rows), chosen)

    def confirm(self, op: Operation, expected: str, title: str, message: Content,
                then: Callable[[], object]) -> None:
        def answered(yes: bool | None) -> None:
            if yes:
                then()

        label = op.label.capitalize()
        irreversible = NO_INVERSE_USER_OPS.get(op.value)
        if op in TYPED:
            screen: ConfirmScreen = TypeToConfirmScreen(title, message, expected, confirm_label=label,
                                                        irreversible=irreversible)
        else:
            screen = ConfirmScreen(title, message, confirm_label=label, danger=op not in GENTLE,
                                   irreversible=irreversible)
        self.app.push_screen(screen, answered)

    def refuse_self(self, user: ModeratedUser, op: Operation) -> str | None:
        """Why `op` must not run on `user` (the signed-in account, which it would lock out), or None."""
        return self_lockout(op, caller_is_target=self.caller_id(user) is not None)

    @work(group="users-moderate")
    async def run_single(self, user: ModeratedUser, op: Operation) -> None:
        service = self.ctx.services.users
        reason = self.refuse_self(user, op)
        if reason is not None:
            self.notify(f"{op.label} {user.username}: refused, {reason}", title="Moderation",
                        severity="error", markup=False, timeout=8)
            return
        with changes_seen.watching() as altered:
            result = await service.try_moderate(user.id, op, user.username)
        if result.ok:  # the row reads its new state when "done" shows (bulk.show_in_place)
            show_in_place(self.app, user, user.after(op, self.today()))
        self.notify(result.summary, title="Moderation", severity="information" if result.ok else "error",
                    markup=False, timeout=8)
        refresh_lists(self.app, altered, besides=(self,))
        self.load_users(refresh=True)

    def run_bulk(self, users: list[ModeratedUser], op: Operation,
                 scope: Scope[ModeratedUser] | None = None) -> Job:
        """Moderate `users` now (no confirmation): the job."""
        return start_bulk(self, self.bulk_action(users, op, scope), table=self.table)

    def bulk_action(self, users: list[ModeratedUser], op: Operation,
                    scope: Scope[ModeratedUser] | None = None) -> BulkAction[ModeratedUser]:
        """`op` on `users` (or all matching, with `scope`) but the caller's own account, as a bulk action."""
        service = self.ctx.services.users

        async def moderate(user: ModeratedUser) -> tuple[bool, str]:
            result = await service.try_moderate(user.id, op, user.username)
            return result.ok, result.message if result.ok else status_line(result.status, result.message)

        return BulkAction(
            f"{op.label.capitalize()} {counted(len(users), 'user')}", users,
            lambda u: u.username or str(u.id), moderate,
            noun="user", verb=f"({op.label})", skip=lambda u: self.refuse_self(u, op),  # not the caller's own
            refresh=lambda: self.load_users(refresh=True), scope=scope,
            after=lambda u: u.after(op, self.today()))


def open_users(request: AreaRequest) -> UsersScreen:
    """The area factory (`:users`)."""
    return UsersScreen(request)
