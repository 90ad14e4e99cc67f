"""`:access` (issue 36) through Pilot against the demo sandbox (the `fleet` group and the seeded cases): each
tab finds the seeded cases and nothing more, its filters, the Owners per group, the member actions through
the kit's forms (journalled), a token's revoke (typed) and rotation (its value shown once in a dialog that
copies it), and no variable value or token value on the screen, in an export, the journal, the request log
or on disk."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from snapshot_apps import jump_to, make_app, settle, type_to_confirm, until
from textual.widgets import Input
from tiny_sandbox import Sandbox

from labdeck.domain.access_members import Grant
from labdeck.domain.access_tokens import TokenRow
from labdeck.domain.variable_findings import VariableRow
from labdeck.tui.list_export import write_rows
from labdeck.tui.screens.access.access import AccessScreen
from labdeck.tui.screens.access.review import ReviewPane
from labdeck.tui.screens.access.tokens import RotatedTokenScreen
from labdeck.tui.screens.confirm import ConfirmScreen, TypeToConfirmScreen

SIZE = (160, 50)
VALUES = ("fleet-deploy-token-0451", "edge-deploy-token-7719", "eu-west-1")


@pytest.fixture(scope="module")
def demo() -> Sandbox:
    return Sandbox(scale="demo")


@pytest.fixture
def fresh() -> Sandbox:
    return Sandbox(scale="demo")


async def open_access(pilot: Any, sandbox: Sandbox, tab: str = "members",
                      scope: str = "fleet") -> AccessScreen:
    await settle(pilot)
    screen = AccessScreen(scope, tab=tab, now=sandbox.now)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    pane = screen.pane
    await until(pilot, lambda: pane.complete, f"the {tab} review")
    return screen


def disk_text() -> str:
    """Every file labdeck may write to (its state folder: journal, settings; its cache folder)."""
    found = []
    for variable in ("LABDECK_STATE", "LABDECK_CACHE_DIR"):
        root = Path(os.environ[variable])
        folder = root.parent if root.suffix else root
        found += [p.read_bytes().decode("latin-1") for p in folder.rglob("*") if p.is_file()]
    return "".join(found)


def shown(pane: ReviewPane) -> list[Any]:
    return list(pane.table.rows)


async def filter_with(pilot: Any, pane: ReviewPane, text: str) -> None:
    pane.query_one(f"#{pane.id}-filter", Input).value = text
    await settle(pilot)


async def test_members_tab(demo: Sandbox) -> None:
    app = make_app(transport_factory=demo.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, demo)
        pane = screen.pane
        status = str(pane.query_one("#access-members-status").render())
        assert "Owners: fleet/core 5" in status
        await filter_with(pilot, pane, "owner path:fleet/core")
        assert sorted(g.username for g in shown(pane)) == ["alice", "bob", "erin", "frank"]
        await filter_with(pilot, pane, "expires:7")
        assert [(g.username, g.path) for g in shown(pane)] == [("external.user", "fleet/web")]
        await filter_with(pilot, pane, "boss")
        assert "boss" in str(pane.query_one("#access-members-status").render())


async def test_variables_tab_holds_no_value(demo: Sandbox, tmp_path: Path) -> None:
    app = make_app(transport_factory=demo.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, demo, "variables")
        pane = screen.pane
        await filter_with(pilot, pane, "findings")
        rows: list[VariableRow] = shown(pane)
        assert [(r.definition.key, r.definition.level) for r in rows] == [("DEPLOY_TOKEN", "group"),
                                                                           ("DEPLOY_TOKEN", "project")]
        assert rows[0].findings == ("secret_not_masked", "flags_differ")
        await filter_with(pilot, pane, "")
        text = app.export_screenshot()
        assert "DEPLOY_TOKEN" in text and not any(v in text for v in VALUES)
        export = await write_rows(tmp_path / "variables.json", pane.table, pane.held, lambda n: None)
        written = export.read_text()
        assert "DEPLOY_TOKEN" in written and not any(v in written for v in VALUES)
        held = disk_text() + repr(app.request_log.entries) + repr(app.session.client.cache._entries)
        assert not any(v in held for v in VALUES)


async def test_tokens_tab(demo: Sandbox) -> None:
    app = make_app(transport_factory=demo.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, demo, "tokens")
        pane = screen.pane
        rows: list[TokenRow] = shown(pane)
        assert {r.name for r in rows} == {"release-bot", "nightly-export", "metrics-push", "mirror-sync",
                                          "healthy-bot"}
        for words, expected in (("expiring", ["release-bot"]), ("expired", ["nightly-export"]),
                                ("never", ["metrics-push"]), ("unused", ["mirror-sync"])):
            await filter_with(pilot, pane, words)
            assert [r.name for r in shown(pane)] == expected, words


async def test_tokens_tab_of_the_instance(demo: Sandbox) -> None:
    """The instance's scope (an empty scope field): every personal access token, owners named, the bots' of
    group and project tokens among them (their kind said by the bot's username)."""
    app = make_app(transport_factory=demo.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, demo, "tokens", scope="")
        pane = screen.pane
        await until(pilot, lambda: "@alice" in {r.owner for r in shown(pane)}, "the owners named")
        for words, expected in (("expired personal", ["old-laptop"]), ("expired project", ["nightly-export"]),
                                ("revoked", ["leaked"]), ("expiring", ["ci-pipeline", "release-bot"]),
                                ("unused:150", ["backup-script", "mirror-sync"])):
            await filter_with(pilot, pane, words)
            assert [r.name for r in shown(pane)] == expected, words


async def test_revoke_and_rotate_a_token_the_value_shown_once_and_held_nowhere(fresh: Sandbox,
                                                                                tmp_path: Path) -> None:
    app = make_app(transport_factory=fresh.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, fresh, "tokens")
        pane = screen.pane
        await filter_with(pilot, pane, "release-bot")
        pane.table.focus()
        await pilot.press("t")
        await until(pilot, lambda: isinstance(app.screen, ConfirmScreen), "the rotate question")
        await pilot.click("#confirm")
        await until(pilot, lambda: isinstance(app.screen, RotatedTokenScreen), "the new value's dialog")
        dialog = app.screen
        assert isinstance(dialog, RotatedTokenScreen) and dialog.secret is not None
        value = dialog.secret.get_secret_value()
        assert value in app.export_screenshot()  # shown once, here
        copied: list[str] = []
        app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await pilot.press("c")
        assert copied == [value]
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen and pane.complete, "the tokens read again")
        assert dialog.secret is None
        assert value not in app.export_screenshot()
        # revoke the new one: its name typed
        await filter_with(pilot, pane, "release-bot active")
        assert len(shown(pane)) == 1  # the rotated one
        pane.table.focus()
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, TypeToConfirmScreen), "the revoke question")
        await type_to_confirm(pilot, app.screen, "release-bot")
        await until(pilot, lambda: pane.complete and all(r.revoked for r in pane.held
                                                          if r.name == "release-bot"), "the revoke")
        journal = app.session.client.journal
        words = [e.operation for e in journal.entries()] if journal is not None else []
        assert words[-2:] == ["rotate group access token", "revoke group access token"], words
        export = await write_rows(tmp_path / "tokens.csv", pane.table, pane.held, lambda n: None)
        assert "release-bot" in export.read_text()
        held = (repr(app.request_log.entries) + repr(app.session.client.cache._entries) + export.read_text()
                + disk_text())
        assert value not in held


async def test_jump_opens_the_area_waiting_for_a_scope(demo: Sandbox) -> None:
    """`:access` without a scope reads nothing (the instance's review is big) and the scope field has the
    focus: `fleet` and enter review the group (the tmux test lost the `f` of `fleet` before this)."""
    app = make_app(transport_factory=demo.factory)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        sent = len(app.request_log.entries)
        await jump_to(pilot, "access")
        screen = app.screen
        assert isinstance(screen, AccessScreen)
        await settle(pilot)
        assert app.focused is screen.query_one("#access-scope", Input)
        assert len(app.request_log.entries) == sent and not screen.pane.table.rows
        for key in "fleet":
            await pilot.press(key)
        await pilot.press("enter")
        await until(pilot, lambda: screen.pane.complete, "the members of fleet")
        assert all(isinstance(g, Grant) for g in screen.pane.table.rows) and screen.pane.table.rows


async def test_member_actions_go_through_the_kit_s_forms_journalled(fresh: Sandbox) -> None:
    """`e` changes a direct membership's level and expiry with the kit's member form; an Owner's asks for the
    username first; an inherited grant is changed where it is given; `x` removes once the name is typed.
    Every change is in the journal, with its undo."""
    from textual.widgets import Select

    app = make_app(transport_factory=fresh.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, fresh)
        pane = screen.pane
        await filter_with(pilot, pane, "@external.user")
        pane.table.focus()
        await pilot.press("e")
        await until(pilot, lambda: app.screen.query("#field-access_level"), "the member form")
        app.screen.query_one("#field-access_level", Select).value = 20
        assert app.screen.submit() is True
        await until(pilot, lambda: app.screen is screen and pane.complete
                    and [g.access_level for g in shown(pane)] == [20], "the changed level")
        web = fresh.store.group_by_path("fleet/web")
        user = fresh.store.user_by_username("external.user")
        assert fresh.store.group_members[web.id][user.id].access_level == 20
        # an Owner: the username first
        await filter_with(pilot, pane, "@frank path:fleet/core")
        pane.table.focus()
        await pilot.press("e")
        await until(pilot, lambda: isinstance(app.screen, TypeToConfirmScreen), "the Owner question")
        await pilot.press("escape")
        await settle(pilot)
        # remove, typed
        await filter_with(pilot, pane, "@external.user")
        pane.table.focus()
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, TypeToConfirmScreen), "the remove question")
        await type_to_confirm(pilot, app.screen, "external.user")
        await until(pilot, lambda: pane.complete and not shown(pane), "the member removed")
        assert user.id not in fresh.store.group_members.get(web.id, {})
        journal = app.session.client.journal
        entries = journal.entries() if journal is not None else []
        assert [(e.operation, e.target, e.ok) for e in entries] == [
            ("change member level", "@external.user of fleet/web", True),
            ("remove member", "@external.user of fleet/web", True)]
        assert all(e.inverse is not None and e.no_undo is None for e in entries)  # both undoable


async def test_escape_in_a_tab_s_filter_goes_back_to_that_tab_s_list(demo: Sandbox) -> None:
    """The screen's escape hands the focus to a list: the one of the tab in view, not the first tab's."""
    app = make_app(transport_factory=demo.factory)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, demo, "tokens")
        pane = screen.pane
        pane.query_one("#access-tokens-filter", Input).focus()
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert app.focused is pane.table


async def test_a_refused_project_is_named_in_the_status_line_and_skipped(demo: Sandbox) -> None:
    """A project whose variables answer 403 is named (with its status) and the review goes on."""
    import httpx

    store = demo.store
    web = store.group_by_path("fleet/web")
    refused = store.projects[min(p.id for p in store.projects.values() if p.namespace_id == web.id)]
    encoded = refused.path_with_namespace.replace("/", "%2F")

    class Refusing(httpx.ASGITransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            if f"/projects/{encoded}/variables" in str(request.url):
                return httpx.Response(403, json={"message": "403 Forbidden"})
            return await super().handle_async_request(request)

    app = make_app(transport_factory=lambda settings: Refusing(demo.asgi))
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_access(pilot, demo, "variables")
        status = str(screen.pane.query_one("#access-variables-status").render())
        assert f"skipped 1: {refused.path_with_namespace} (403)" in status
        assert any(r.definition.key == "DEPLOY_TOKEN" for r in screen.pane.held)
