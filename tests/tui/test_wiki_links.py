"""The wiki preview opens links under the one link policy (`tui.links.open_link`, deciding with
`domain.links.link_verdict`): it had its own check, which `https://evil.example\\@instance/` passed and which
opened `smb:` links after a yes."""

from __future__ import annotations

from typing import Any

from snapshot_apps import make_app, settle
from textual.widgets import Markdown

from labdeck.api.models.projects import Project
from labdeck.tui import links
from labdeck.tui.screens.confirm import ConfirmScreen
from labdeck.tui.screens.projects import wiki
from labdeck.tui.screens.projects.wiki import WikiEditorScreen

SIZE = (120, 40)
PROJECT = Project(id=1, name="api-gateway", path="api-gateway",
                  path_with_namespace="acme/platform/api-gateway",
                  name_with_namespace="Acme / Platform / api-gateway", default_branch="main")


async def _editor(pilot: Any) -> WikiEditorScreen:
    await settle(pilot)
    await pilot.app.push_screen(WikiEditorScreen(PROJECT, "home"))
    await settle(pilot)
    editor = pilot.app.screen
    assert isinstance(editor, WikiEditorScreen)
    return editor


def _click(editor: WikiEditorScreen, href: str) -> None:
    editor.on_markdown_link_clicked(Markdown.LinkClicked(editor.query_one("#wiki-preview", Markdown), href))


async def test_the_wiki_preview_uses_the_one_link_policy(monkeypatch: Any) -> None:
    seen: list[str] = []
    monkeypatch.setattr(wiki, "open_link", lambda app, url: seen.append(url))
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        editor = await _editor(pilot)
        _click(editor, "smb://evil.example/share")
        assert seen == ["smb://evil.example/share"]  # handed to the shared function, not decided here


async def test_wiki_links_off_the_instance_ask_and_other_schemes_never_open(monkeypatch: Any) -> None:
    opened: list[str] = []
    monkeypatch.setattr(links, "open_in_browser", lambda url: opened.append(url) or True)
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        editor = await _editor(pilot)
        _click(editor, "smb://sandbox.test/share")
        await pilot.pause()
        assert app.screen is editor and opened == []  # refused outright: no question to say yes to
        _click(editor, "https://evil.example\\@sandbox.test/x")
        await pilot.pause()
        dialog = app.screen
        assert isinstance(dialog, ConfirmScreen) and "evil.example" in str(dialog.message)
        await pilot.click("#confirm")
        await pilot.pause()
        assert opened == ["https://evil.example/@sandbox.test/x"]  # where the browser would have gone anyway
        _click(editor, "http://sandbox.test/acme/wiki")
        await pilot.pause()
        assert app.screen is editor and opened[-1] == "http://sandbox.test/acme/wiki"  # own host: at once
