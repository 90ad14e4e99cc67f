"""`:access`'s Tokens tab: the access tokens of the scope (`domain.access_tokens.TokenRow`: name, kind, owner,
scopes, created, last used, expires, state), never a token's value. A group scope lists each group's and
project's access tokens (`api/access_tokens.TokensReview`); the instance, every personal access token
(administrators: `GET /personal_access_tokens`). Filters: `expired`, `active`, `revoked`, `expiring` (30
days) or `expires:N`, `unused` (90 days) or `unused:N`, `never`, `personal|group|project`, `@owner`, a word
of the name.

`x` revokes the token under the cursor once its name is typed (journalled, no undo: GitLab has none). `t`
rotates it after a confirmation: the old one stops working, and the new value is shown once, in
`RotatedTokenScreen`, which can copy it (`c`); it is never logged, journalled, cached or exported
(`api/access_tokens.AccessTokensService.rotate`: the value is a `SecretStr`, registered with the
redaction, held by that dialog alone until it closes).
"""

from __future__ import annotations

from datetime import date
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from labdeck.api.access_scope import Unreadable
from labdeck.api.access_tokens import Rotated
from labdeck.domain.access_filters import parse_token_filter
from labdeck.domain.access_tokens import ROTATE_NO_INVERSE, TokenFilter, TokenRow, expires_within, unused_for
from labdeck.tui.kit.actions import Action, Shown, shown
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.panes import EVERY_LIST_FOOTER
from labdeck.tui.kit.tabs import TabSpec, day, detail_text
from labdeck.tui.screens.access.review import Heard, ReviewPane
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen
from labdeck.tui.textual_internals import notify_content
from labdeck.tui.widgets.table_columns import Column, plain_column
from labdeck.tui.workers import is_live

if TYPE_CHECKING:
    from labdeck.api.services import Services

STATE_STYLE = {"active": "green", "expired": "red", "revoked": "dim"}


def expiry_text(row: TokenRow, today: date) -> Text:
    """`2026-12-09 (3d)`, red once expired, yellow within 30 days; `never` in yellow."""
    if row.expires_at is None:
        return Text("never", style="yellow")
    left = row.days_left(today)
    style = "red" if left is not None and left <= 0 else "yellow" if expires_within(row.expires_at, today) \
        else ""
    return Text(f"{day(row.expires_at)} ({left}d)", style=style)


def token_spec(today: Any) -> TabSpec:
    """The tab's columns; `today()` gives the console's date (states and days left are the day's)."""
    def state(row: TokenRow) -> Text:
        name = row.state(today())
        return Text(name, style=STATE_STYLE[name])

    def detail(row: TokenRow) -> Text:
        return detail_text(row.name, [
            ("id", row.id), ("kind", row.kind), ("owner", row.owner), ("scopes", ", ".join(row.scopes)),
            ("access level", row.access_level), ("created", day(row.created_at)),
            ("last used", day(row.last_used_at) or "never"), ("expires", day(row.expires_at) or "never"),
            ("days left", row.days_left(today())), ("state", row.state(today()))])

    columns = [
        plain_column("name", "Token", lambda r: r.name, min_width=10, priority=10, data=lambda r: r.name),
        plain_column("kind", "Kind", lambda r: r.kind, width=8, priority=3, data=lambda r: r.kind),
        plain_column("owner", "Owner", lambda r: r.owner, min_width=10, priority=7, data=lambda r: r.owner),
        Column("state", "State", width=7, essential=True, text=state, data=lambda r: r.state(today())),
        Column("expires", "Expires", width=17, essential=True, text=lambda r: expiry_text(r, today()),
               sort_key=lambda r: r.expires_at or date.max, data=lambda r: r.expires_at,
               extra_data=(("days_left", lambda r: r.days_left(today())),)),
        Column("used", "Last used", width=10, text=lambda r: Text(day(r.last_used_at) or "never"),
               sort_key=lambda r: (r.last_used_at is not None, r.last_used_at), data=lambda r: r.last_used_at,
               priority=4),
        plain_column("scopes", "Scopes", lambda r: ",".join(r.scopes), min_width=6, priority=1,
                     data=lambda r: list(r.scopes)),
    ]
    return TabSpec(columns, lambda r: (r.kind, r.id), detail, "No access tokens in this scope")


class RotatedTokenScreen(ModalScreen[None]):
    """The new value of a rotated token, shown once: `c` copies it (the notification never shows it), and
    closing the dialog drops it (nothing else holds it)."""

    CSS_PATH = "access.tcss"
    AUTO_FOCUS = "#rotated-close"
    SENDS_NO_WRITE = ("shows a rotated token's new value once: the rotation was sent (after its own "
                      "confirmation) before this opened")
    BINDINGS = [Binding("c", "copy", "Copy", id="access.rotated.copy"),
                Binding("escape", "close", "Close", id="access.rotated.close")]

    def __init__(self, name: str, rotated: Rotated) -> None:
        super().__init__()
        self.token_name = name
        self.expires = day(rotated.token.expires_at) or "never"
        self.secret: SecretStr | None = rotated.secret

    def compose(self) -> ComposeResult:
        with Vertical(classes="rotated-box"):
            yield Static(Content.from_markup("[b]New value of $name[/b]", name=self.token_name))
            yield Static(Content(f"Shown once: copy it now. It expires {self.expires}. labdeck keeps it "
                                 "nowhere."), classes="rotated-note")
            secret = self.secret
            yield Static(Text(secret.get_secret_value() if secret else ""), markup=False, id="rotated-value")
            with Horizontal(classes="rotated-buttons"):
                yield Button("Copy (c)", id="rotated-copy", variant="primary")
                yield Button("Close", id="rotated-close")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "rotated-copy":
            self.action_copy()
        else:
            self.action_close()

    def action_copy(self) -> None:
        if self.secret is not None:
            self.app.copy_to_clipboard(self.secret.get_secret_value())
            notify_content(self.app, Content.assemble("Copied the new value of ", self.token_name), timeout=3)

    def action_close(self) -> None:
        self.secret = None
        self.dismiss(None)


class AccessTokensPane(ReviewPane):
    FILTER_HINT = "filter: expired  expiring  expires:7  unused:90  never  project  @owner"
    ACTIONS = (
        Shown("select"),
        Action("x", "revoke_token", "Revoke", id="access.tokens.revoke", mutating=True, row=True,
               footer=True),
        Action("t", "rotate_token", "Rotate", id="access.tokens.rotate", mutating=True, row=True,
               footer=True),
        *shown(name for name in EVERY_LIST_FOOTER if name != "select"),
    )

    def __init__(self, owner: Owner, **kwargs: Any) -> None:
        super().__init__(owner, token_spec(lambda: self.now().date()), id="access-tokens", **kwargs)
        self.cut = False  # the instance's tokens stopped at the client's row ceiling

    async def review(self, services: Services, scope: str | None, refresh: bool,
                     heard: Heard) -> tuple[list[Any], list[Unreadable]]:
        if scope is None:  # the instance: every personal access token, read on demand
            personal = await services.access_tokens.personal_review(refresh=refresh, on_rows=heard)
            self.cut = personal.cut
            return list(personal.rows), []
        read = await services.access_review_tokens.review(scope, refresh=refresh, on_rows=heard)
        return list(read.rows), read.unreadable

    def parse_filter(self, text: str) -> TokenFilter:
        return parse_token_filter(text)

    def matches(self, wanted: Any, row: Any) -> bool:
        return bool(wanted.matches(row, self.now()))

    def counts(self, rows: list[Any]) -> str:
        if not self.complete:
            return ""
        now = self.now()
        today = now.date()
        expired = sum(1 for r in rows if r.state(today) == "expired")
        soon = sum(1 for r in rows if not r.revoked and expires_within(r.expires_at, today))
        never = sum(1 for r in rows if not r.revoked and r.expires_at is None)
        unused = sum(1 for r in rows
                     if r.state(today) == "active" and unused_for(r.last_used_at, r.created_at, now))
        cut = f" (the first {len(rows):,}: more on the server)" if self.cut else ""
        return (f"{expired} expired, {soon} expiring in 30 days, {never} never expire, {unused} unused 90 "
                f"days{cut}")

    # -- actions --------------------------------------------------------------------------------------
    def chosen(self) -> TokenRow | None:
        row = self.table.cursor_row
        if not isinstance(row, TokenRow):
            return None
        if row.revoked:
            self.notify(f"{row.name} is revoked already", severity="warning", markup=False)
            return None
        return row

    def action_revoke_token(self) -> None:
        row = self.chosen()
        if row is None:
            return
        message = Content.from_markup("Revoke the $kind access token [b]$name[/b] of [b]$owner[/b]? "
                                      "Whatever uses it stops working now.", kind=row.kind, name=row.name,
                                      owner=row.owner)
        confirm = TypeToConfirmScreen("Revoke access token", message, row.name, confirm_label="Revoke",
                                      irreversible="GitLab cannot make a revoked token active again")
        def answered(yes: bool | None) -> None:
            if yes:
                self.revoke(row)

        self.app.push_screen(confirm, answered)

    @work(group="access-tokens-change")
    async def revoke(self, row: TokenRow) -> None:
        service = self.ctx.services.access_tokens
        if row.path is None:
            await service.revoke_personal(row.id)
        else:
            await service.revoke("groups" if row.kind == "group" else "projects", row.path, row.id)
        notify_content(self, Content.assemble("Revoked ", row.name))
        self.load(refresh=True)

    def action_rotate_token(self) -> None:
        row = self.chosen()
        if row is None:
            return
        message = Content.from_markup("Rotate [b]$name[/b] of [b]$owner[/b]? The current value stops working "
                                      "now; the new one is shown once.", name=row.name, owner=row.owner)
        def answered(yes: bool | None) -> None:
            if yes:
                self.rotate(row)

        self.app.push_screen(ConfirmScreen("Rotate access token", message, confirm_label="Rotate",
                                           irreversible=ROTATE_NO_INVERSE), answered)

    @work(group="access-tokens-change")
    async def rotate(self, row: TokenRow) -> None:
        service = self.ctx.services.access_tokens
        if row.path is None:
            rotated = await service.rotate_personal(row.id)
        else:
            rotated = await service.rotate("groups" if row.kind == "group" else "projects", row.path, row.id)
        if is_live(self):
            self.app.push_screen(RotatedTokenScreen(row.name, rotated))
            self.load(refresh=True)
