"""Design rules at the edges: palette entries built from the config are literal text (a saved view's
query may hold `[`), and read-only mode hides the registry cleanup's Apply button, not only its key."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import httpx
from snapshot_apps import make_app, settle
from textual.command import CommandList
from textual.widgets import Button
from tiny_sandbox import Sandbox

from labdeck.api.models.registry import RegistryRepository, RegistryTagDetail
from labdeck.config.files import Config, SavedView
from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen

SIZE = (140, 40)


async def test_saved_views_with_markup_are_listed_literally() -> None:
    views = {"[/bold]": SavedView("[/bold]", 'title:"[@click=app.quit]x" label:[red]'),
             "fine": SavedView("fine", "state:opened", scope="[b]group:acme")}
    app = make_app(Config(path=Path("/nonexistent/labdeck-test/config.toml"), views=views))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("ctrl+p")
        await pilot.pause()
        app.screen.query_one("CommandInput").value = "saved view"
        commands = app.screen.query_one(CommandList)
        prompts: list[str] = []
        for _ in range(60):
            await pilot.pause(0.05)
            prompts = [str(commands.get_option_at_index(i).prompt) for i in range(commands.option_count)]
            if len(prompts) >= 2:
                break
        text = "\n".join(prompts)
        assert "Saved view: [/bold]" in text and '[@click=app.quit]x' in text and "[b]group:acme" in text
        await pilot.press("escape")
        await pilot.pause()
        assert app.is_running and app.return_code is None


async def test_read_only_hides_the_cleanup_apply_button() -> None:
    asgi = Sandbox().asgi
    now = asgi.state.store.now()
    tags = [RegistryTagDetail(name=f"t{i}", created_at=now - timedelta(days=i), digest=f"sha256:{i}",
                              total_size=10) for i in range(5)]
    repo = RegistryRepository(id=999, name="x", path="acme/x", project_id=1, tags_count=5)
    for read_only, shown in ((True, False), (False, True)):
        app = make_app(read_only=read_only, transport_factory=lambda settings: httpx.ASGITransport(asgi))
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            screen = RegistryCleanupScreen(repo, tags, now=lambda: now)
            await app.push_screen(screen)
            await pilot.pause()
            assert screen.query_one("#cleanup-apply", Button).display is shown
            screen.query_one("#cleanup-delete").value = ".*"  # type: ignore[attr-defined]
            await pilot.pause(0.3)
            screen.action_apply()
            await pilot.pause()
            assert (app.screen is not screen) is shown  # the confirmation only when not read-only
