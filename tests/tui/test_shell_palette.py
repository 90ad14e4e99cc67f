"""The palette: labdeck's themes only, every area's actions from anywhere (choosing one opens the area and
runs it), one Quit, literal entries."""

from __future__ import annotations

from typing import Any

from snapshot_apps import jump_to, make_app, palette_choose, settle

from labdeck.tui.area_commands import AreaActionCommands
from labdeck.tui.commands import ScreenActionCommands, ThemeCommands
from labdeck.tui.screens.groups.forms import FormScreen
from labdeck.tui.screens.groups.groups import GroupsScreen
from labdeck.tui.screens.registry.registry import RegistryScreen

SIZE = (120, 36)



async def titles(provider_class: type, screen: Any) -> list[str]:
    return [title for title, _, _ in provider_class(screen).entries()]


async def test_every_areas_actions_are_offered_from_registry() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "registry")
        assert isinstance(app.screen, RegistryScreen)
        offered = await titles(AreaActionCommands, app.screen)
        assert any("ban" in title.lower() and title.startswith("Users:") for title in offered)
        assert "Groups: Export" in offered
        assert not any(title.startswith("Registry:") for title in offered)  # the current screen's own


async def test_choosing_another_areas_action_opens_the_area_and_runs_it() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await jump_to(pilot, "registry")
        await palette_choose(pilot, "groups: export", "Groups: Export", wait=15)  # the machine may be loaded
        await settle(pilot)
        assert isinstance(app.screen, FormScreen)  # Export asks for the folder
        await pilot.press("escape")
        assert isinstance(app.screen, GroupsScreen)


async def test_themes_are_labdecks_and_quit_is_offered_once() -> None:
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        themes = await titles(ThemeCommands, app.screen)
        assert themes == ["Theme: labdeck-dark", "Theme: labdeck-high-contrast", "Theme: labdeck-light"]
        everything = [title for provider in (ScreenActionCommands, AreaActionCommands)
                      for title in await titles(provider, app.screen)]
        assert everything.count("Quit") == 1
        await palette_choose(pilot, "quit", "Quit", wait=15)
