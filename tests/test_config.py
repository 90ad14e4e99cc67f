"""The TOML config: round trips, atomic 0600 writes, every bad-config message, token sources, env fallback."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

import pytest
from pydantic import SecretStr

from labdeck.api.settings import Timeouts
from labdeck.config.files import (
    Config,
    ConfigError,
    InstanceConfig,
    SavedView,
    config_path,
    env_instances,
    load_config,
    save_config,
    select_instance,
)
from labdeck.config.tokens import resolve_token

FULL = """
default_instance = "work"
theme = "labdeck-dark"

[instances.work]
url = "https://gitlab.example.com"
auth = "private"
token_command = "pass show gitlab/work"
sudo = "alice"
verify_tls = true
ca_file = "CA_FILE"
timeout = 30
read_only = false
concurrency = 8

[instances.lab]
url = "https://lab.example.org/"
auth = "oauth"
token_env = "LAB_TOKEN"
read_only = true
concurrency = 2

[instances.lab.timeout]
connect = 3
deadline = 60

[keymap]
"refresh" = "ctrl+r"

[views.my-bugs]
query = "label:bug assignee:alice state:opened"
scope = "instance"

[views.team]
query = "state:opened"
scope = "group:acme/platform"
"""

FULL = FULL.replace("CA_FILE", str(Path(__file__).parent / "data" / "test-ca.pem"))
SECRET = "glpat-DoNotLeakThis123"
BASE = '[instances.work]\nurl = "https://h"\ntoken_env = "T"\n'


def write(tmp_path: Path, text: str, name: str = "config.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(tmp_path: Path, text: str) -> str:
    path = write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert str(path) in message
    assert "\n" not in message
    return message


# --- reading ---------------------------------------------------------------------------------------------

def test_full_example_is_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    assert config.default_instance == "work"
    assert config.theme == "labdeck-dark"
    work = config.instances["work"]
    assert (work.name, work.auth, work.sudo) == ("work", "private", "alice")
    assert work.url == "https://gitlab.example.com"
    assert work.token_command == "pass show gitlab/work"
    assert work.timeouts == Timeouts(connect=30, read=30, pool=30)
    lab = config.instances["lab"]
    assert lab.url == "https://lab.example.org"
    assert lab.timeouts == Timeouts(connect=3, deadline=60)
    assert (lab.read_only, lab.concurrency, lab.auth) == (True, 2, "oauth")
    assert config.keymap == {"refresh": "ctrl+r"}
    assert config.views["team"] == SavedView("team", "state:opened", "group:acme/platform")
    assert config.warnings == ()


def test_missing_file_is_an_empty_config(tmp_path: Path) -> None:
    config = load_config(tmp_path / "nope" / "config.toml")
    assert config.instances == {} and config.default_instance is None and config.views == {}
    assert config.path == tmp_path / "nope" / "config.toml"


def test_config_path_precedence(tmp_path: Path) -> None:
    assert config_path({"LABDECK_CONFIG": str(tmp_path / "x.toml"), "XDG_CONFIG_HOME": "/xdg"}) == \
        tmp_path / "x.toml"
    assert config_path({"XDG_CONFIG_HOME": "/xdg"}) == Path("/xdg/labdeck/config.toml")
    assert config_path({}) == Path.home() / ".config" / "labdeck" / "config.toml"


def test_load_config_defaults_to_labdeck_config_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, 'theme = "x"\n')
    monkeypatch.setenv("LABDECK_CONFIG", str(path))
    assert load_config().theme == "x"


def test_unknown_keys_warn_and_survive_a_save(tmp_path: Path) -> None:
    path = write(tmp_path, FULL + '\ncolour = "red"\n[instances.work.timeout2]\nx = 1\n[plugins]\na = 1\n')
    # "colour" after [views.team] belongs to views.team
    config = load_config(path)
    text = " ".join(config.warnings)
    assert "views.team.colour" in text and "instances.work.timeout2" in text and "plugins" in text
    save_config(config)
    again = load_config(path)
    assert again.extra == {"plugins": {"a": 1}}
    assert again.instances["work"].extra == {"timeout2": {"x": 1}}
    assert again.views["team"].extra == {"colour": "red"}


# --- bad configs: each names the file and the dotted key ---------------------------------------------------

def test_bad_toml_gives_line_and_column(tmp_path: Path) -> None:
    message = error_of(tmp_path, 'theme = "x"\n[instances.work]\nurl = \n')
    assert "invalid TOML" in message and "line 3" in message and "column" in message


@pytest.mark.parametrize(("snippet", "key", "problem"), [
    ('[instances.work]\nurl = 5\ntoken_env = "T"\n', "instances.work.url", "must be a string"),
    ('[instances.work]\ntoken_env = "T"\n', "instances.work.url", "is missing"),
    ('[instances.work]\nurl = "ftp://x"\ntoken_env = "T"\n', "instances.work.url", "http"),
    ('[instances.work]\nurl = "https://h"\nauth = "basic"\ntoken_env = "T"\n', "instances.work.auth",
     "private, oauth, job"),
    ('[instances.work]\nurl = "https://h"\n', "instances.work", "no token source"),
    ('[instances.work]\nurl = "https://h"\ntoken_env = "T"\ntoken_command = "x"\n', "instances.work",
     "only one token source"),
    (BASE + 'verify_tls = "yes"\n', "instances.work.verify_tls", "true or false"),
    (BASE + "concurrency = 0\n", "instances.work.concurrency", "greater than 0"),
    (BASE + "concurrency = 2.5\n", "instances.work.concurrency", "integer"),
    ('[instances.work]\nurl = "https://h"\ntoken_env = "T"\ntimeout = "slow"\n', "instances.work.timeout",
     "number"),
    ('[instances.work]\nurl = "https://h"\ntoken_env = "T"\n[instances.work.timeout]\nread = -1\n',
     "instances.work.timeout.read", "greater than 0"),
    ('instances = 3\n', "instances", "must be a table"),
    ('[instances]\nwork = "https://h"\n', "instances.work", "must be a table"),
    ('default_instance = "nope"\n', "default_instance", "no instance named 'nope'"),
    ('theme = 1\n', "theme", "must be a string"),
    ('[keymap]\nrefresh = 1\n', "keymap.refresh", "string of keys"),
    ('[views.v]\nscope = "instance"\n', "views.v.query", "is missing"),
    ('[views.v]\nquery = "x"\nscope = "project:a"\n', "views.v.scope", "group:<path>"),
])
def test_bad_config_messages(tmp_path: Path, snippet: str, key: str, problem: str) -> None:
    message = error_of(tmp_path, snippet)
    assert f": {key}: " in message
    assert problem in message


# --- writing --------------------------------------------------------------------------------------------

def test_round_trip(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, FULL))
    target = tmp_path / "out" / "config.toml"
    save_config(Config(path=target, instances=config.instances, default_instance="work", theme="t",
                       keymap=config.keymap, views=config.views))
    again = load_config(target)
    assert again.instances == config.instances
    assert again.views == config.views and again.keymap == config.keymap
    assert (again.default_instance, again.theme) == ("work", "t")


def test_round_trip_of_a_stored_token(tmp_path: Path) -> None:
    target = tmp_path / "config.toml"
    config = Config(path=target).with_instance("w", InstanceConfig(url="https://h", token=SecretStr(SECRET)))
    save_config(config)
    again = load_config(target)
    assert again.instances["w"].token is not None
    assert again.instances["w"].token.get_secret_value() == SECRET
    assert any("keeps a token" in w for w in again.warnings)
    assert not any("readable by group" in w for w in again.warnings)


def test_file_mode_0600_and_new_folder_0700(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        target = tmp_path / "deep" / "labdeck" / "config.toml"
        save_config(Config(path=target, theme="a"))
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(target.parent.stat().st_mode) == 0o700
    assert [p.name for p in target.parent.iterdir()] == ["config.toml"]  # no temp file left behind


def test_a_failing_replace_leaves_the_old_file_intact(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "config.toml"
    save_config(Config(path=target, theme="old"))
    before = target.read_bytes()

    def broken_replace(src: object, dst: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ConfigError, match="No space left"):
        save_config(Config(path=target, theme="new"))
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_failing_write_leaves_the_old_file_intact(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "config.toml"
    save_config(Config(path=target, theme="old"))
    before = target.read_bytes()

    def broken_fsync(fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(ConfigError):
        save_config(Config(path=target, theme="new"))
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["config.toml"]


def test_a_symlinked_config_is_written_through_the_link(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "labdeck.toml"
    real.parent.mkdir()
    real.write_text('theme = "old"\n', encoding="utf-8")
    link = tmp_path / "config.toml"
    link.symlink_to(real)
    save_config(load_config(link).with_theme("new"))
    assert link.is_symlink()
    assert load_config(real).theme == "new"


def test_token_in_a_group_readable_file_is_warned_about(tmp_path: Path) -> None:
    path = write(tmp_path, f'[instances.w]\nurl = "https://h"\ntoken = "{SECRET}"\n')
    path.chmod(0o644)
    config = load_config(path)
    assert any("readable by group or others" in w for w in config.warnings)
    assert all(SECRET not in w for w in config.warnings)


def test_with_helpers_return_new_configs(tmp_path: Path) -> None:
    base = Config(path=tmp_path / "c.toml")
    inst = InstanceConfig(url="https://h", token_env="T")
    one = base.with_theme("light").with_instance("w", inst).with_default_instance("w")
    two = one.with_view("v", SavedView("ignored", "state:opened"))
    assert base.theme is None and base.instances == {}
    assert one.theme == "light" and one.instances["w"].name == "w" and one.default_instance == "w"
    assert two.views["v"].name == "v" and one.views == {}
    assert two.with_instance("w", None).default_instance is None
    with pytest.raises(ConfigError, match="default_instance"):
        base.with_default_instance("nope")


# --- tokens -------------------------------------------------------------------------------------------------

def test_token_never_in_repr_or_str(tmp_path: Path) -> None:
    path = write(tmp_path, f'[instances.w]\nurl = "https://h"\ntoken = "{SECRET}"\n')
    config = load_config(path)
    settings = config.instances["w"].connection()
    for text in (repr(config), str(config), repr(config.instances["w"]), str(config.instances["w"]),
                 repr(settings), repr(config.instances)):
        assert SECRET not in text
    assert settings.token is not None and settings.token.get_secret_value() == SECRET


def test_token_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = write(tmp_path, '[instances.w]\nurl = "https://h"\ntoken_env = "WORK_TOKEN"\nsudo = "bob"\n'
                           'auth = "oauth"\nread_only = true\n')
    inst = load_config(path).instances["w"]
    monkeypatch.setenv("WORK_TOKEN", SECRET)
    settings = inst.connection()
    assert settings.token is not None and settings.token.get_secret_value() == SECRET
    assert (settings.sudo, settings.auth, settings.read_only, settings.name) == ("bob", "oauth", True, "w")
    monkeypatch.delenv("WORK_TOKEN")
    with pytest.raises(ConfigError) as info:
        inst.connection()
    assert "WORK_TOKEN" in str(info.value) and "instances.w.token_env" in str(info.value)
    assert str(path) in str(info.value)


def _command_instance(command: str) -> InstanceConfig:
    return InstanceConfig(url="https://h", name="w", token_command=command, config_path=Path("/c.toml"))


def test_token_command_output_is_the_token() -> None:
    script = f"import sys; sys.stdout.write('  {SECRET}\\nsecond line\\n')"
    cmd = f"{sys.executable} -c \"{script}\""
    assert resolve_token(_command_instance(cmd)).get_secret_value() == SECRET


def test_token_command_failure_shows_stderr_never_stdout() -> None:
    script = f"import sys; print('{SECRET}'); print('gpg: decryption failed', file=sys.stderr); sys.exit(3)"
    cmd = f"{sys.executable} -c \"{script}\""
    with pytest.raises(ConfigError) as info:
        _command_instance(cmd).connection()
    message = str(info.value)
    assert "gpg: decryption failed" in message and "exit status 3" in message
    assert "/c.toml: instances.w.token_command" in message
    assert SECRET not in message and SECRET not in repr(info.value)


@pytest.mark.parametrize(("command", "problem"), [
    ("/nonexistent/labdeck-no-such-tool show", "command not found"),
    ("'unbalanced", "cannot parse"),
    (f"{sys.executable} -c pass", "printed no token"),
])
def test_token_command_problems(command: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        resolve_token(_command_instance(command))


def test_token_command_timeout() -> None:
    cmd = f"{sys.executable} -c \"import time; time.sleep(5)\""
    with pytest.raises(ConfigError, match=r"did not finish within 0\.2 s"):
        resolve_token(_command_instance(cmd), timeout=0.2)


def test_token_command_runs_without_a_shell(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    cmd = f"{sys.executable} -c \"print('tok')\" ; touch {marker}"
    resolve_token(_command_instance(cmd))  # the ';' and touch are arguments, not a second command
    assert not marker.exists()


# --- choosing the instance and environment fallbacks ---------------------------------------------------

def _two(tmp_path: Path, default: str | None) -> Config:
    head = f'default_instance = "{default}"\n' if default else ""
    return load_config(write(tmp_path, head + '[instances.a]\nurl = "https://a"\ntoken_env = "A"\n'
                                             '[instances.b]\nurl = "https://b"\ntoken_env = "B"\n'))


ENV = {"GITLAB_URL": "https://env.example/", "GITLAB_TOKEN": SECRET,
       "CI_SERVER_URL": "https://ci.example", "CI_JOB_TOKEN": "job-tok"}


def test_precedence_explicit_then_default(tmp_path: Path) -> None:
    config = _two(tmp_path, "a")
    assert select_instance(config, "b", ENV).name == "b"
    assert select_instance(config, None, ENV).name == "a"
    assert select_instance(config, "env", ENV).url == "https://env.example"
    assert select_instance(config, "ci", ENV).auth == "job"


def test_precedence_gitlab_env_then_ci(tmp_path: Path) -> None:
    empty = Config(path=tmp_path / "c.toml")
    env = select_instance(empty, None, ENV)
    assert (env.name, env.source, env.auth, env.token_env) == ("env", "env", "private", "GITLAB_TOKEN")
    only_ci = {k: v for k, v in ENV.items() if k.startswith("CI_")}
    ci = select_instance(empty, None, only_ci)
    assert (ci.name, ci.auth, ci.url, ci.token_env) == ("ci", "job", "https://ci.example", "CI_JOB_TOKEN")
    assert SECRET not in repr(env)


def test_env_instance_resolves_its_token(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GITLAB_URL", "https://env.example")
    monkeypatch.setenv("GITLAB_TOKEN", SECRET)
    settings = env_instances()["env"].connection()
    assert settings.token is not None and settings.token.get_secret_value() == SECRET
    assert settings.api_url == "https://env.example/api/v4"


def test_one_configured_instance_wins_over_env(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, '[instances.only]\nurl = "https://o"\ntoken_env = "O"\n'))
    assert select_instance(config, None, ENV).name == "only"


@pytest.mark.parametrize(("name", "env", "problem"), [
    ("nope", ENV, "no instance named 'nope'"),
    (None, {}, "several instances and no default_instance"),
])
def test_selection_errors(tmp_path: Path, name: str | None, env: dict[str, str], problem: str) -> None:
    with pytest.raises(ConfigError, match=problem):
        select_instance(_two(tmp_path, None), name, env)


def test_nothing_configured(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="GITLAB_URL and GITLAB_TOKEN"):
        select_instance(Config(path=tmp_path / "c.toml"), None, {})
    with pytest.raises(ConfigError, match="CI_JOB_TOKEN"):
        select_instance(Config(path=tmp_path / "c.toml"), "ci", {})
