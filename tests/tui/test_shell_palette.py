"""The palette: labdeck's themes only, every area's actions from anywhere (choosing one opens the area and
runs it), one Quit, literal entries."""

from __future__ import annotations

from typing import Any

from snapshot_apps import jump_to, make_app, messages, palette_choose, settle, until

from labdeck.tui.area_commands import AreaActionCommands
from labdeck.tui.commands import ScreenActionCommands, ThemeCommands
from labdeck.tui.kit.forms import FormScreen
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


async def test_registry_cleanup_from_the_palette_runs_on_the_tags_shown_on_top() -> None:
    """The registry area was left on a repository's tags: the palette's Cleanup opens the cleanup panel of
    that repository (it used to land on the tags and stop)."""
    from tiny_sandbox import GATEWAY

    from labdeck.tui.areas import AreaRequest
    from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen
    from labdeck.tui.screens.registry.registry import RegistryTagsScreen
    from labdeck.tui.screens.users.users import UsersScreen

    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await app.open_area("registry", AreaRequest(scope=GATEWAY))
        await settle(pilot)
        await pilot.press("enter")  # the first repository's tags
        await settle(pilot)
        assert isinstance(app.screen, RegistryTagsScreen)
        await jump_to(pilot, "users")
        assert isinstance(app.screen, UsersScreen)
        await palette_choose(pilot, "registry: cleanup", "Registry: Cleanup", wait=15)
        await until(pilot, lambda: isinstance(app.screen, RegistryCleanupScreen), "the cleanup panel")


async def test_a_palette_action_that_needs_a_choice_says_so() -> None:
    """`Registry: Cleanup` with no project chosen says what it needs instead of doing nothing."""
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await palette_choose(pilot, "registry: cleanup", "Registry: Cleanup", wait=15)
        await until(pilot, lambda: any("choose a project or group first" in m for m in messages(app)),
                    "the palette saying what Cleanup needs")
        assert isinstance(app.screen, RegistryScreen)
