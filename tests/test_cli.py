"""The `labdeck` entry point: --version stays light, a bad config is one line with exit 2, dispatching."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import labdeck
from labdeck import __version__
from labdeck.cli.main import main

SRC = str(Path(labdeck.__file__).resolve().parents[1])


def _python(code: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
           "LABDECK_CONFIG": str(tmp_path / "absent.toml")}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def test_version_prints_and_imports_no_heavy_module(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from labdeck.cli.main import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit as exc:\n    rc = exc.code\n"
        "names = ('textual', 'httpx', 'pydantic', 'rich', 'starlette')\n"
        "heavy = sorted(m for m in names if m in sys.modules)\n"
        "print('RC', rc, 'HEAVY', heavy)\n"
    )
    done = _python(code, tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"labdeck {__version__}" in done.stdout
    assert "RC 0 HEAVY []" in done.stdout


def test_python_dash_m_labdeck_version(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": SRC}
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "labdeck", "--version"],
                          capture_output=True, text=True, env=env, timeout=60, check=False)
    assert done.returncode == 0 and done.stdout.strip() == f"labdeck {__version__}"
    imported = {line.split("|")[-1].strip().split(".")[0] for line in done.stderr.splitlines() if "|" in line}
    assert "labdeck" in imported
    assert not imported & {"textual", "httpx", "pydantic", "rich"}


def test_bad_config_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[instances.work]\nurl = "https://h"\nauth = "basic"\ntoken_env = "T"\n',
                    encoding="utf-8")
    assert main(["--config", str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("labdeck: ") and captured.err.count("\n") == 1
    assert "instances.work.auth" in captured.err and str(path) in captured.err


def test_bad_toml_through_labdeck_config_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text("theme = \n", encoding="utf-8")
    monkeypatch.setenv("LABDECK_CONFIG", str(path))
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "line 1" in err and "Traceback" not in err


def test_api_subcommand_dispatches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("LABDECK_CONFIG", str(tmp_path / "absent.toml"))
    for name in ("GITLAB_URL", "GITLAB_TOKEN", "CI_SERVER_URL", "CI_JOB_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    assert main(["api", "projects"]) == 2
    assert capsys.readouterr().err.startswith("labdeck api: no instance configured")


def test_unknown_instance_is_reported_before_the_tui(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[instances.work]\nurl = "https://h"\ntoken_env = "T"\n', encoding="utf-8")
    assert main(["--config", str(path), "--instance", "home"]) == 2
    err = capsys.readouterr().err
    assert "no instance named 'home'" in err and "work" in err


def test_demo_and_instance_exclude_each_other(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--demo", "--instance", "work"])
    assert info.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_help_lists_the_headless_commands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    commands = ("labdeck api", "labdeck registry plan", "labdeck registry policy", "labdeck sandbox serve")
    for command in commands:
        assert command in out, command


def test_sandbox_seeds_are_explained(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["sandbox", "serve", "--help"])
    out = " ".join(capsys.readouterr().out.split())
    assert "--seed SEED seed of the generated data" in out
    assert "--fault-seed FAULT_SEED seed of the --faults draws" in out
