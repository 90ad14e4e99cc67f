"""Theme files (shipped and user), the keymap checks, and that every labdeck binding has an id."""

from __future__ import annotations

from pathlib import Path

import pytest

from labdeck.tui.keymap import binding_ids, check_keymap, missing_ids
from labdeck.tui.themes import (
    ThemeFileError,
    discover_themes,
    load_theme_file,
    package_theme_dir,
    user_theme_dir,
)


def test_shipped_themes_load() -> None:
    found = discover_themes(package_theme_dir())
    assert found.warnings == []
    assert {"labdeck-dark", "labdeck-light", "labdeck-high-contrast"} <= set(found.names)
    light = next(t for t in found.themes if t.name == "labdeck-light")
    assert light.dark is False and light.background == "#F7F7F9"


def test_user_theme_overrides_and_bad_files_warn(tmp_path: Path) -> None:
    folder = user_theme_dir(tmp_path / "config.toml")
    assert folder == tmp_path / "themes"
    folder.mkdir()
    (folder / "mine.toml").write_text('name = "mine"\nprimary = "#123456"\n[variables]\nborder = "#ffffff"\n')
    (folder / "broken.toml").write_text('name = "broken"\nprimary = \n')
    (folder / "badcolour.toml").write_text('name = "bad"\nprimary = "not-a-colour"\n')
    (folder / "typo.toml").write_text('name = "typo"\nprimary = "#000000"\nbackgroud = "#111111"\n')
    found = discover_themes(package_theme_dir(), folder)
    assert "mine" in found.names and "labdeck-dark" in found.names
    assert not {"broken", "bad", "typo"} & set(found.names)
    assert len(found.warnings) == 3
    assert any("backgroud" in w for w in found.warnings)
    assert all(str(folder) in w for w in found.warnings)


def test_theme_file_without_primary_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "x.toml"
    path.write_text('name = "x"\n')
    with pytest.raises(ThemeFileError, match="primary is required"):
        load_theme_file(path)


def test_keymap_check_applies_well_formed_entries_and_warns() -> None:
    usable, warnings = check_keymap({"refresh": "ctrl+r", "nope": "x", "help": ""}, {"refresh", "help"})
    assert usable == {"refresh": "ctrl+r", "nope": "x"}
    assert any("keymap.nope" in w for w in warnings) and any("keymap.help" in w for w in warnings)


def test_every_labdeck_binding_has_an_id() -> None:
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.screens.shell.catalogue import screen_classes

    classes = [LabdeckApp, *screen_classes()]
    assert missing_ids(classes) == []
    ids = binding_ids(classes)
    expected = {"quit", "jump", "help", "back", "refresh", "palette", "jobs.cancel", "projects.archive"}
    assert expected <= set(ids)


def test_keymap_ids_of_every_area_are_known() -> None:
    """`"issues.bulk" = "B"` used to work but warn: every screen's bindings are in the catalogue."""
    from labdeck.tui.app import LabdeckApp
    from labdeck.tui.screens.shell.catalogue import screen_classes

    known = binding_ids([LabdeckApp, *screen_classes()])
    wanted = {"issues.bulk": "B", "registry.cleanup": "C", "groups.export": "E", "users.moderate": "M"}
    present = {key: keys for key, keys in wanted.items() if key in known}
    assert "issues.bulk" in present
    usable, warnings = check_keymap(present, known)
    assert usable == present and warnings == []


async def test_an_area_keymap_entry_starts_without_a_warning() -> None:
    from pathlib import Path

    from snapshot_apps import make_app

    from labdeck.config.files import Config

    config = Config(path=Path("/nonexistent/labdeck-test/config.toml"), keymap={"issues.bulk": "B"})
    app = make_app(config)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert not [w for w in app.config_warnings if "keymap" in w]
