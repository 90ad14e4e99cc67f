"""Pilot tests of what the config drives: theme switch persisted and restored, keymap remapping, instance
switching, first-run setup that writes the config. The config lives in a tmp path via LABDECK_CONFIG."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest
from snapshot_apps import SANDBOX_URL, make_app, palette_choose, settle
from textual.widgets import Button, Input

from labdeck.config.files import load_config
from labdeck.tui.screens.shell.first_run import FirstRunScreen
from labdeck.tui.screens.shell.help import HelpScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.screens.shell.jump import JumpScreen

SIZE = (110, 30)


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "labdeck" / "config.toml"
    monkeypatch.setenv("LABDECK_CONFIG", str(path))
    return path


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(text)
    path.chmod(0o600)


def _bytes(path: Path) -> bytes:
    return path.read_bytes()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)



async def test_theme_from_palette_is_saved_and_restored(config_file: Path) -> None:
    from labdeck.config.state import load_state, state_path

    _write(config_file, '# my own notes\ntheme = "labdeck-dark"  # dark by default\n')
    before = _bytes(config_file)
    app = make_app(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.theme == "labdeck-dark"
        await palette_choose(pilot, "theme: labdeck-light", "Theme: labdeck-light")
        await settle(pilot)
        assert app.theme == "labdeck-light"
    assert _bytes(config_file) == before  # the user's config is never rewritten: comments, layout stay
    assert load_state().theme == "labdeck-light"  # labdeck's own state file holds the choice
    assert _mode(state_path()) == 0o600
    again = make_app(load_config())
    async with again.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert again.theme == "labdeck-light"


async def test_user_theme_from_config_folder_is_offered(config_file: Path) -> None:
    _write(config_file.parent / "themes" / "solar.toml", 'name = "solar"\nprimary = "#b58900"\ndark = true\n')
    _write(config_file, 'theme = "solar"\n')
    app = make_app(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "solar" in app.available_themes and app.theme == "solar"


async def test_keymap_in_config_remaps_a_binding(config_file: Path) -> None:
    _write(config_file, '[keymap]\nhelp = "f1"\njump = "ctrl+g"\n')
    app = make_app(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HomeScreen)  # ? no longer opens help
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        keys = {row.binding_id: row.key for row in app.screen.rows}
        assert keys["help"] == "f1"
        await pilot.press("escape", "ctrl+g")
        assert isinstance(app.screen, JumpScreen)


async def test_unknown_keymap_id_is_a_warning_notification(config_file: Path) -> None:
    _write(config_file, '[keymap]\n"no.such.binding" = "f5"\n')
    app = make_app(load_config())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any("no.such.binding" in m for m in messages)


async def test_switch_instance_rebuilds_the_client(config_file: Path) -> None:
    _write(config_file,
        f'default_instance = "one"\n[instances.one]\nurl = "{SANDBOX_URL}"\ntoken = "glpat-sandbox-root"\n'
        f'[instances.two]\nurl = "{SANDBOX_URL}"\ntoken = "glpat-sandbox-alice"\nread_only = true\n')
    config = load_config()
    app = make_app(config, settings=config.instances["one"].connection())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        first_client = app.session.client
        assert app.session.user.username == "root" and not app.read_only
        app.switch_instance("two")
        await settle(pilot)
        await settle(pilot)
        assert app.session.name == "two" and app.session.client is not first_client
        assert app.session.user.username == "alice"
        assert app.read_only  # read_only = true on the instance


async def test_first_run_adds_an_instance_checks_it_and_writes_the_config(config_file: Path) -> None:
    app = make_app(load_config(), first_run=True)
    async with app.run_test(size=(110, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, FirstRunScreen)
        screen.query_one("#name", Input).value = "sandbox"
        screen.query_one("#url", Input).value = SANDBOX_URL
        screen.query_one("#token", Input).value = "glpat-sandbox-wrong"
        await pilot.click("#save")
        await settle(pilot)
        assert isinstance(app.screen, FirstRunScreen)  # 401: stays, says why
        assert "401" in str(screen.query_one("#first-run-status").render())
        assert load_config(config_file).instances == {}
        screen.query_one("#token", Input).value = "glpat-sandbox-root"
        screen.query_one("#save", Button).press()
        await settle(pilot)
        await settle(pilot)
        assert isinstance(app.screen, HomeScreen), [(e.path, e.status) for e in app.request_log.entries]
        assert app.session is not None and app.session.name == "sandbox"
    saved = load_config(config_file)
    assert saved.default_instance == "sandbox"
    assert saved.instances["sandbox"].url == SANDBOX_URL
    assert _mode(config_file) == 0o600


async def test_first_run_refuses_credentials_in_the_url_and_writes_nothing(config_file: Path) -> None:
    import asyncio

    app = make_app(load_config(), first_run=True)
    async with app.run_test(size=(110, 50)) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#url", Input).value = "http://user:pass@sandbox.test"
        screen.query_one("#token", Input).value = "glpat-sandbox-root"
        screen.query_one("#save", Button).press()
        await settle(pilot)
        assert isinstance(app.screen, FirstRunScreen)
        assert "credentials" in str(screen.query_one("#first-run-status").render())
        assert not await asyncio.to_thread(config_file.exists)


async def test_switching_instance_with_running_jobs_asks_first(config_file: Path) -> None:
    """Issue 22 item 7: a switch cancelled running jobs without asking (quit asks); and the overview's
    recent projects belong to the instance they were opened on."""
    import asyncio

    from labdeck.tui.screens.confirm import ConfirmScreen

    _write(config_file,
        f'default_instance = "one"\n[instances.one]\nurl = "{SANDBOX_URL}"\ntoken = "glpat-sandbox-root"\n'
        f'[instances.two]\nurl = "{SANDBOX_URL}"\ntoken = "glpat-sandbox-alice"\n')
    config = load_config()
    app = make_app(config, settings=config.instances["one"].connection())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        app.context.note_project(1, "acme/one-only")
        release = asyncio.Event()

        async def long(job: object) -> None:
            await release.wait()

        job = app.start_job("Export", long)
        app.switch_instance("two")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert app.session.name == "one" and not job.state.finished
        app.switch_instance("two")
        await pilot.pause()
        await pilot.click("#confirm")
        await settle(pilot)
        await settle(pilot)
        assert job.state.finished and app.session.name == "two"
        assert app.context.recent_projects == []
