"""How the Pilot tests open areas, screens and tabs, and answer their menus: the one copy of each way in
(`snapshot_apps` has the app, `settle`, `until` and `jump_to` they are built from; `tiny_sandbox` the
sandbox). A test file imports these rather than another test file's helpers.

- `open_screen`: push a screen once the app has settled, wait until it has loaded;
- `open_area`: `:name` + enter, the area's screen checked;
- `open_groups`, `show_tab`, `on_variable`, `add_form`, `cells`, `pane`: `:groups` and its tabs;
- `open_issues`, `open_users`, `open_view` (the project view): the areas most tests start from;
- `choose`: an option of the menu on top (bulk, moderation, link menus); `pick`: a `Select`'s value;
- `huge_app`, `open_list`, `listing_requests`, `list_footer`, `export_to`: partial lists on the scale
  sandbox.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from snapshot_apps import jump_to, make_app, press_for, sandbox, sandbox_settings, settle
from textual.widgets import OptionList, Select, TabbedContent

from labdeck.sandbox.clock import ManualClock
from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.forms import FormScreen

if TYPE_CHECKING:
    from textual.screen import Screen
    from tiny_sandbox import Sandbox

    from labdeck.tui.screens.groups.groups import GroupsScreen
    from labdeck.tui.screens.issues.issues import IssuesScreen
    from labdeck.tui.screens.projects.view import ProjectViewScreen
    from labdeck.tui.screens.users.users import UsersScreen

GATEWAY = "acme/platform/api-gateway"
S = TypeVar("S")
Form = TypeVar("Form", bound=FormScreen)

USERS_CLOCK = ManualClock()  # the users tests' sandboxes and screens agree on "today"
USERS_TODAY = datetime.fromtimestamp(USERS_CLOCK.time(), UTC).date()


def users_today() -> date:
    return USERS_TODAY


async def open_screen(pilot: Any, screen: S, rounds: int = 1, *, before: int = 1) -> S:
    """Push `screen` once the app has settled (`before` rounds), then wait `rounds` rounds for it to load."""
    await settle(pilot, rounds=before)
    await pilot.app.push_screen(screen)
    await settle(pilot, rounds=rounds)
    return screen


async def open_area(pilot: Any, name: str, kind: type[S]) -> S:
    """`:name` + enter (the jump prompt), the area settled; it must be a `kind`."""
    await settle(pilot)
    await jump_to(pilot, name)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, kind), screen
    return screen


# -- :groups ----------------------------------------------------------------------------------------------
async def open_groups(pilot: Any, path: str = "acme", **kwargs: Any) -> GroupsScreen:
    from labdeck.tui.screens.groups.groups import GroupsScreen

    return await open_screen(pilot, GroupsScreen(AreaRequest(scope=path), **kwargs), rounds=2)


async def show_tab(pilot: Any, screen: GroupsScreen, tab: str) -> None:
    screen.query_one("#groups-tabs", TabbedContent).active = f"tab-{tab}"
    await settle(pilot)


async def on_variable(pilot: Any, screen: GroupsScreen, key: str) -> tuple[Any, int]:
    """The Variables tab shown, its list focused with the cursor on `key`: the list and the row's index."""
    await show_tab(pilot, screen, "variables")
    table = screen.table("variables")
    table.focus()
    index = [v.key for v in table.visible_rows].index(key)
    table.move_cursor(index)
    await pilot.pause()
    return table, index


async def add_form(pilot: Any, screen: GroupsScreen, tab: str, kind: type[Form] = FormScreen) -> Form:
    """Show `tab` and open its add form (`a`)."""
    await show_tab(pilot, screen, tab)
    screen.table(tab).focus()
    return await press_for(pilot, "a", kind)


def pane(screen: GroupsScreen, tab: str) -> Any:
    """The pane a tab holds."""
    made = screen.pane(tab)
    assert made is not None, f"the {tab} tab has no pane yet"
    return made


def cells(screen: GroupsScreen, tab: str, column: int = 0) -> list[str]:
    """The plain text of `column` for the rows shown in `tab` (its pane's)."""
    spec = pane(screen, tab).spec
    return [spec.cells(row)[column].plain for row in screen.table(tab).visible_rows]


# -- the areas most tests start from ----------------------------------------------------------------------
async def open_issues(pilot: Any, query: str = "", scope: str | None = None) -> IssuesScreen:
    from labdeck.tui.screens.issues.issues import IssuesScreen

    return await open_screen(pilot, IssuesScreen(AreaRequest(query=query, scope=scope)), rounds=3, before=3)


async def open_users(pilot: Any, search: str = "") -> UsersScreen:
    """`:users` on `USERS_TODAY`, its search field holding `search`."""
    from labdeck.tui.screens.users.users import UsersScreen

    screen = UsersScreen(today=users_today)
    screen.search = search
    return await open_screen(pilot, screen)


async def open_view(pilot: Any, sandbox: Sandbox | None = None, tab: str = "wiki", path: str = GATEWAY,
                    rounds: int = 1) -> ProjectViewScreen:
    """The view of the project at `path` on `tab`: on the sandbox's clock when given one, else the project
    as the app's session reads it."""
    from labdeck.api.models.projects import Project
    from labdeck.tui.screens.projects.view import ProjectViewScreen

    if sandbox is None:
        await settle(pilot)
        data = await pilot.app.session.client.get_json(f"/projects/{path.replace('/', '%2F')}")
        view = ProjectViewScreen(Project.model_validate(data), tab=tab)
    else:
        view = ProjectViewScreen(sandbox.project(path), tab=tab, now=sandbox.now)
    return await open_screen(pilot, view, rounds=rounds)


# -- menus and choices ------------------------------------------------------------------------------------
async def choose(pilot: Any, kind: type[Screen[Any]], option: str) -> Any:
    """Choose `option` (an option's id) in the menu on top, which must be a `kind`; the menu."""
    await pilot.pause()
    menu = pilot.app.screen
    assert isinstance(menu, kind), menu
    options = menu.query_one(OptionList)
    options.highlighted = options.get_option_index(option)
    await pilot.press("enter")
    await pilot.pause()
    return menu


async def pick(pilot: Any, screen: Any, selector: str, value: Any) -> None:
    """Set the `Select` at `selector` to `value` and wait for what it starts."""
    screen.query_one(selector, Select).value = value
    await settle(pilot)


# -- lists on the scale sandbox (a million issues and users): partial lists --------------------------------
LIST_SIZE = (160, 45)
LIST_ROUNDS = 4  # a partial list reads its pages ahead in steps: wait for each step a load starts


def huge_app(max_rows: int = 20_000, **options: Any) -> Any:
    """An app on the scale sandbox (`options`: `SandboxOptions` fields), holding at most `max_rows` rows."""
    from labdeck.api.settings import ConnectionSettings

    base = sandbox_settings()
    settings = ConnectionSettings(base.url, token=base.token, name=base.name, max_list_rows=max_rows)
    return make_app(settings=settings, transport_factory=sandbox(None, **{"scale": "huge", **options})[1])


async def open_list(pilot: Any, screen: S) -> S:
    """`open_screen` for a list on the scale sandbox: its first pages and the pages ahead read."""
    return await open_screen(pilot, screen, rounds=LIST_ROUNDS, before=LIST_ROUNDS)


def listing_requests(app: Any, path: str) -> list[str]:
    """The paths of the requests the app sent for the listing ending in `path`."""
    return [e.path for e in app.session.client.request_log.entries if e.path.split("?")[0].endswith(path)]


def list_footer(screen: Any, view_id: str) -> str:
    """The count line under the list `view_id` of `screen`."""
    from labdeck.tui.widgets.resource_view import ResourceView, footer_text

    return footer_text(screen.query_one(view_id, ResourceView).table).plain


async def export_to(pilot: Any, screen: Any, choice: str, target: Path) -> Any:
    """ctrl+e, the scope question answered with `choice`, the file named: the export job, finished."""
    from textual.widgets import Input

    from labdeck.tui.screens.scope_choice import ScopeChoice
    from labdeck.tui.screens.shell.export import ExportDialog

    app = pilot.app
    screen.action_export_list()
    await pilot.pause()
    assert isinstance(app.screen, ScopeChoice)
    await pilot.click(f"#{choice}")
    await settle(pilot)
    assert isinstance(app.screen, ExportDialog)
    app.screen.query_one("#export-path", Input).value = str(target)
    await pilot.press("enter")
    await settle(pilot)
    job = app.jobs.jobs[-1]
    await app.jobs.wait(job)
    return job
