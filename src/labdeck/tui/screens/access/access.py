"""`:access`: who can do what, and what is exposed, across a group (its subgroups and their projects) or the
instance (issue 36). A scope field (a group's full path; empty: the instance, for administrators) and three
tabs, each a list pane of the kit (`screens/access/review.ReviewPane`): Members (`members.py`), Variables
(`variables.py`), Tokens (`tokens.py`). A tab reads its review when first shown, rows as they come; enter
in the scope field shows the new scope in every tab (each reads it when shown); opened without a scope,
the field has the focus and nothing is read until one is entered. `]` and `[` switch tabs, `f` puts the
focus in the scope field, `r` reads the tab in view past the cache. `labdeck access` is its twin on the
command line.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from rich.text import Text
from textual.app import ComposeResult
from textual.widgets import Input, Static, TabbedContent, TabPane

from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.actions import Action
from labdeck.tui.screens.access.members import AccessMembersPane
from labdeck.tui.screens.access.review import ReviewPane, scope_owner
from labdeck.tui.screens.access.tokens import AccessTokensPane
from labdeck.tui.screens.access.variables import AccessVariablesPane
from labdeck.tui.screens.base import LabdeckScreen

TABS = ("members", "variables", "tokens")
SCOPE_HINT = "group path (subgroups included); empty: the instance (administrators)"


class AccessScreen(LabdeckScreen):
    AREA = "access"
    TITLE = "Access review"
    CSS_PATH = "access.tcss"
    FOOTER_PANES = {"access-tabs": ("next_tab", "previous_tab", "scope")}
    ACTIONS = (
        Action("right_square_bracket", "next_tab", "Next tab", id="access.next_tab"),
        Action("left_square_bracket", "previous_tab", "Previous tab", id="access.previous_tab"),
        Action("f", "scope", "Scope", id="access.scope"),
    )

    def __init__(self, scope: str | None = None, *, tab: str = "members",
                 now: Callable[[], datetime] | None = None) -> None:
        super().__init__()
        self.scope = (scope or "").strip().strip("/")
        self.chosen = scope is not None  # else nothing is read until a scope is entered
        self.initial_tab = tab if tab in TABS else "members"
        self.now = now

    def compose_body(self) -> ComposeResult:
        owner = scope_owner(self.scope)
        yield Static(Text("Scope:", style="bold"), id="access-scope-label")
        yield Input(self.scope, placeholder=SCOPE_HINT, id="access-scope")
        with TabbedContent(initial=f"access-tab-{self.initial_tab}", id="access-tabs"):
            for title, pane in (("Members", AccessMembersPane), ("Variables", AccessVariablesPane),
                                ("Tokens", AccessTokensPane)):
                with TabPane(title, id=f"access-tab-{title.lower()}"):
                    made = pane(owner, now=self.now)
                    made.waiting = not self.chosen
                    yield made

    def on_mount(self) -> None:
        self.sub_title = (self.scope or "the instance") if self.chosen else "choose a scope"
        self.mark_data_loaded()

    def focus_on_open(self) -> None:
        """Drawn: the list of the tab in view has the focus, or the scope field while none is chosen (what is
        typed first is the scope; the key router lets no key in before this)."""
        if self.chosen:
            self.focus_tab()
        else:
            self.action_scope()

    @property
    def tabs(self) -> TabbedContent:
        return self.query_one("#access-tabs", TabbedContent)

    @property
    def pane(self) -> ReviewPane:
        """The tab in view."""
        return self.query_one(f"#{self.tabs.active} ReviewPane", ReviewPane)

    def panes(self) -> list[ReviewPane]:
        return list(self.query(ReviewPane))

    def focus_tab(self) -> None:
        self.pane.table.focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if self.chosen:  # else the scope field keeps the focus (the first tab is activated on mount too)
            self.call_after_refresh(self.focus_tab)

    def show_tab(self, name: str) -> None:
        self.tabs.active = f"access-tab-{name}"

    def step_tab(self, step: int) -> None:
        current = TABS.index(self.tabs.active.removeprefix("access-tab-"))
        self.show_tab(TABS[(current + step) % len(TABS)])
        self.call_after_refresh(self.focus_tab)

    def action_next_tab(self) -> None:
        self.step_tab(1)

    def action_previous_tab(self) -> None:
        self.step_tab(-1)

    def action_scope(self) -> None:
        self.query_one("#access-scope", Input).focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if event.input.id == "access-scope":
            event.stop()
            self.show_scope(event.value)

    def show_scope(self, scope: str) -> None:
        """Every tab shows `scope` (the tab in view reads it now, the others when shown)."""
        self.scope, self.chosen = scope.strip().strip("/"), True
        self.sub_title = self.scope or "the instance"
        owner, shown = scope_owner(self.scope), self.pane
        for pane in self.panes():
            pane.show_scope(owner, read=pane is shown)
        self.focus_tab()

    def refresh_data(self) -> None:
        """`r`: the tab in view reads its review again, past the cache."""
        self.pane.reload()
        self.mark_data_loaded()


def open_access(request: AreaRequest) -> AccessScreen:
    """The area factory (`:access`; a saved view's scope is the group reviewed; without one, the scope
    field waits for one)."""
    return AccessScreen(request.scope or request.query or None)
