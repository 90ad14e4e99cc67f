"""Config values that would crash later are config errors now (one line: file, dotted key, problem), a
top-level key inside an instance table is a warning, and a failing token command's stderr is redacted."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from labdeck.api.client import ApiClient
from labdeck.config.files import ConfigError, InstanceConfig, load_config
from labdeck.config.tokens import resolve_token
from labdeck.domain.redaction import register_secret

CA = Path(__file__).parent / "data" / "test-ca.pem"
BASE = '[instances.work]\nurl = "https://h"\ntoken_env = "T"\n'
LEGACY = "aB3dE5fG7hJ9kL1mN2pQ"  # a 20-character legacy token: no glpat- prefix to recognise
OAUTH = "9f" * 32  # a 64-hex OAuth token


def error_of(tmp_path: Path, text: str) -> str:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    message = str(info.value)
    assert message.startswith(f"{path}: ") and "\n" not in message
    return message


@pytest.mark.parametrize(("snippet", "key", "problem"), [
    ('ca_file = "/nonexistent/ca.pem"\n', "instances.work.ca_file", "/nonexistent/ca.pem does not exist"),
    ('ca_file = "/"\n', "instances.work.ca_file", "is not a file"),
    ('ca_file = "NOT_A_CERT"\n', "instances.work.ca_file", "no PEM certificate"),
    ("timeout = nan\n", "instances.work.timeout", "finite"),
    ("timeout = inf\n", "instances.work.timeout", "finite"),
    ("timeout = -inf\n", "instances.work.timeout", "finite"),
    ("timeout = -3\n", "instances.work.timeout", "greater than 0"),
    ("timeout = 1e300\n", "instances.work.timeout", "at most 86400"),
    ("[instances.work.timeout]\nread = nan\n", "instances.work.timeout.read", "finite"),
    ("[instances.work.timeout]\ndeadline = inf\n", "instances.work.timeout.deadline", "finite"),
    ("concurrency = 1000000000\n", "instances.work.concurrency", "at most 1000"),
    ("max_pages = 0\n", "instances.work.max_pages", "greater than 0"),
    ("max_list_rows = 0\n", "instances.work.max_list_rows", "greater than 0"),
    ('sudo = "alice smith"\n', "instances.work.sudo", "HTTP header"),
])
def test_values_that_would_crash_later_are_config_errors(tmp_path: Path, snippet: str, key: str,
                                                         problem: str) -> None:
    not_a_cert = tmp_path / "notes.txt"
    not_a_cert.write_text("just some text\n")
    message = error_of(tmp_path, BASE + snippet.replace("NOT_A_CERT", str(not_a_cert)))
    assert f": {key}: " in message and problem in message


@pytest.mark.parametrize("url", ["https://h:99999", "https://h:port", "https://h/a b"])
def test_unusable_urls(tmp_path: Path, url: str) -> None:
    message = error_of(tmp_path, f'[instances.work]\nurl = "{url}"\ntoken_env = "T"\n')
    assert ": instances.work.url: " in message


def test_a_token_that_cannot_be_a_header_is_refused_without_quoting_it(tmp_path: Path) -> None:
    message = error_of(tmp_path, '[instances.work]\nurl = "https://h"\ntoken = "abc def-secret-123"\n')
    assert ": instances.work.token: " in message and "secret-123" not in message


def test_a_good_ca_file_loads_and_the_client_uses_it(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BASE + f'ca_file = "{CA}"\nmax_pages = 50\nmax_list_rows = 2500\n')
    instance = load_config(path).instances["work"]
    assert instance.ca_file == str(CA) and instance.max_pages == 50 and instance.max_list_rows == 2500
    settings = resolve_settings(instance)
    assert settings.max_pages == 50 and settings.max_list_rows == 2500
    ApiClient(settings)  # builds its SSL context from the file without raising


def resolve_settings(instance: InstanceConfig):  # type: ignore[no-untyped-def]
    import os

    os.environ["T"] = "glpat-config-validation"
    try:
        return instance.connection()
    finally:
        del os.environ["T"]


def test_persist_cache_inside_an_instance_warns_that_it_belongs_at_the_top(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(BASE + "persist_cache = true\n")
    config = load_config(path)
    assert config.persist_cache is False  # still ignored there...
    (warning,) = config.warnings  # ...but said once, plainly
    assert "instances.work.persist_cache" in warning and "belongs at the top level" in warning
    assert "unknown key" not in warning


def _failing_command(stdout: str, stderr: str) -> InstanceConfig:
    code = (f"import sys; sys.stdout.write({stdout!r}); sys.stderr.write({stderr!r}); sys.exit(1)")
    return InstanceConfig(url="https://h", name="w", token_command=f"{sys.executable} -c \"{code}\"",
                          config_path=Path("/c.toml"))


@pytest.mark.parametrize("token", [LEGACY, OAUTH])
def test_token_command_stderr_never_shows_what_it_printed_on_stdout(token: str) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_token(_failing_command(token + "\n", f"agent refused to hand over {token}\n"))
    message = str(info.value)
    assert token not in message and "[redacted]" in message and "agent refused" in message


def test_token_command_stderr_never_shows_a_registered_token() -> None:
    register_secret(OAUTH)  # another instance's token, resolved earlier in this process
    with pytest.raises(ConfigError) as info:
        resolve_token(_failing_command("", f"cached {OAUTH} is stale\n"))
    assert OAUTH not in str(info.value) and "cached [redacted] is stale" in str(info.value)


@pytest.mark.parametrize(("snippet", "key"), [('ca_file = "/nonexistent/ca.pem"\n', "instances.work.ca_file"),
                                              ("timeout = nan\n", "instances.work.timeout")])
@pytest.mark.parametrize("command", [[], ["api", "user"]])
def test_labdeck_and_labdeck_api_refuse_them_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                         snippet: str, key: str, command: list[str]) -> None:
    from labdeck.cli.main import main

    path = tmp_path / "config.toml"
    path.write_text(BASE + snippet)
    assert main([*command, "--config", str(path)]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and f"{path}: {key}: " in err and "Traceback" not in err


@pytest.mark.parametrize(("url", "verify", "warned"), [
    ("http://gitlab.example.com", "", "uses http://"),
    ("https://h", "verify_tls = false\n", "verify_tls = false"),
    ("http://127.0.0.1:8080", "", None),
    ("http://localhost", "", None),
    ("https://h", "", None),
])
def test_a_token_that_would_travel_readable_is_warned_about(tmp_path: Path, url: str, verify: str,
                                                              warned: str | None) -> None:
    """Issue 22 item 7: `http://` and `verify_tls = false` were never warned about."""
    path = tmp_path / "config.toml"
    path.write_text(f'[instances.work]\nurl = "{url}"\ntoken_env = "T"\n{verify}')
    warnings = load_config(path).warnings
    if warned is None:
        assert list(warnings) == []
    else:
        (warning,) = warnings
        assert "instances.work" in warning and warned in warning


def test_the_url_rule_is_one_for_the_loader_and_the_first_run_screen() -> None:
    """Issue 22 item 7: the first-run screen accepted `http://user:pass@host` and wrote a config that the
    loader then refused; both use `config.urls.url_problem` now."""
    import inspect

    from labdeck.config import schema
    from labdeck.config.urls import url_problem
    from labdeck.tui.screens.shell import first_run

    assert "credentials" in (url_problem("http://user:pass@host") or "")
    assert url_problem("https://gitlab.example.com:8443/sub") is None
    assert "url_problem(" in inspect.getsource(schema) and "url_problem(" in inspect.getsource(first_run)
