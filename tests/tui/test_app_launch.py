"""`launch`/`build_app`: demo mode against the sandbox served on loopback (the same HTTP path as a real
instance), the instance from the config, first run without one, and a bad config exiting 2."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from labdeck.tui.launch import build_app, launch
from labdeck.tui.screens.shell.first_run import FirstRunScreen
from labdeck.tui.screens.shell.home import HomeScreen


def _options(**values: object) -> argparse.Namespace:
    base = {"demo": False, "instance": None, "read_only": False, "config": None}
    base.update(values)
    return argparse.Namespace(**base)


@pytest.fixture
def config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    path = tmp_path / "config.toml"
    monkeypatch.setenv("LABDECK_CONFIG", str(path))
    for name in ("GITLAB_URL", "GITLAB_TOKEN", "CI_SERVER_URL", "CI_JOB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    return path


async def test_demo_mode_serves_the_sandbox_on_loopback_signed_in_as_root(config_file: Path) -> None:
    app, sandbox = build_app(_options(demo=True, read_only=True))
    try:
        assert sandbox.base_url.startswith("http://127.0.0.1:")
        async with app.run_test(size=(100, 30)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert isinstance(app.screen, HomeScreen)
            assert app.session.settings.base_url == sandbox.base_url
            assert (app.session.user.username, app.session.user.is_admin) == ("root", True)
            assert app.read_only
            assert app.session.client.settings.read_only  # --read-only is enforced by the client too
    finally:
        sandbox.stop()


async def test_no_instance_opens_first_run(config_file: Path) -> None:
    app, sandbox = build_app(_options())
    assert sandbox is None
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, FirstRunScreen)


def test_instance_from_the_config_and_by_name(config_file: Path) -> None:
    config_file.write_text('default_instance = "a"\n'
                           '[instances.a]\nurl = "https://a.example"\ntoken_env = "TA"\n'
                           '[instances.b]\nurl = "https://b.example"\ntoken_env = "TB"\nread_only = true\n')
    config_file.chmod(0o600)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TA", "glpat-aaaa")
        patch.setenv("TB", "glpat-bbbb")
        app, _ = build_app(_options())
        assert app._initial_settings.name == "a" and not app.read_only
        app, _ = build_app(_options(instance="b"))
        assert app._initial_settings.base_url == "https://b.example" and app.read_only


def test_bad_config_prints_one_line_and_exits_2(config_file: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    config_file.write_text("[instances.x]\nurl = 5\n")
    assert launch(_options()) == 2
    err = capsys.readouterr().err
    assert err.startswith("labdeck: ") and "instances.x.url" in err and "Traceback" not in err


async def test_demo_plays_the_edition_and_version_asked_for(config_file: Path) -> None:
    app, sandbox = build_app(_options(demo=True, edition="ce", gitlab_version="15.0", demo_auth="job"))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.session.settings.auth == "job"
            assert app.session.job is not None and app.session.job.project_path == "acme/platform/api-gateway"
    finally:
        sandbox.stop()
    app, sandbox = build_app(_options(demo=True, edition="ce", gitlab_version="15.0"))
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert app.session.capabilities.label() == "GitLab 15.0.0 CE"
    finally:
        sandbox.stop()


@pytest.mark.parametrize("argv", [["--edition", "ce"], ["--gitlab-version", "15.0"], ["--demo-auth", "job"],
                                  ["--demo", "--gitlab-version", "fifteen"], ["--demo", "--edition", "xe"]])
def test_demo_options_are_checked(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    from labdeck.cli.main import main

    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "labdeck: error:" in capsys.readouterr().err


def test_demo_does_not_warn_about_the_configs_instances(config_file: Path) -> None:
    """`--demo` reads the config's theme and keymap, never its instances: a token kept in the file (or a
    file others can read) is not the demo's business, so no such warning; other warnings stay."""
    config_file.write_text('theme = "nord"\nbogus = 1\n[instances.work]\nurl = "https://gitlab.example"\n'
                           'token = "glpat-DemoDoesNotRead1"\n', encoding="utf-8")
    config_file.chmod(0o644)
    app, sandbox = build_app(_options(demo=True))
    try:
        warnings = " ".join(app.config_warnings)
        assert "keeps a token" not in warnings and "readable by group or others" not in warnings
        assert "unknown key bogus" in warnings
        assert not app.config.instances
    finally:
        sandbox.stop()
    app, _ = build_app(_options(instance="work"))  # a session on the instance still hears both
    warnings = " ".join(app.config_warnings)
    assert "keeps a token" in warnings and "readable by group or others" in warnings
