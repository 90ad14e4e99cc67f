"""A failing `token_command` shows its stderr with the token removed by value, not only by GitLab's shapes:
`set -x` echoes a 64-hex OAuth token (`+ T=...`), which no `gl...-` shape catches; a configured token is
known by value from the moment the config is read."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

from labdeck.config.errors import ConfigError
from labdeck.config.files import load_config
from labdeck.config.schema import InstanceConfig
from labdeck.config.tokens import resolve_token
from labdeck.domain.redaction import redact

OAUTH = "5f0c3a9e8b7d6c1f2e4a9b8c7d6e5f40312a9b8c7d6e5f4a3b2c1d0e9f8a7b6c"


def _instance(tmp_path: Path, script: str) -> InstanceConfig:
    path = tmp_path / "token.py"
    path.write_text(script)
    return InstanceConfig(url="https://h", name="w", token_command=f"{sys.executable} {path}",
                          config_path=Path("/c.toml"))


def test_a_set_x_trace_of_the_fetched_token_is_not_shown(tmp_path: Path) -> None:
    script = ("import sys\n"
              f"sys.stderr.write('+ T={OAUTH}\\n+ curl -u oauth2:{OAUTH} https://h/api/v4/user\\n')\n"
              f"sys.stderr.write('curl: (22) error: 401 for glenn-smith with T={OAUTH}\\n')\n"
              "sys.exit(22)\n")
    with pytest.raises(ConfigError) as info:
        resolve_token(_instance(tmp_path, script))
    message = str(info.value)
    assert OAUTH not in message and OAUTH[:32] not in message
    assert "curl -u" not in message and "exit status 22" in message  # the last line only (issue 32 item 10)
    assert "401 for glenn-smith with T=[redacted]" in message  # an ordinary word is not a secret


def test_a_token_fetched_before_is_removed_by_value_when_the_command_later_fails(tmp_path: Path) -> None:
    legacy = "q9-zz_short-Token"  # no GitLab shape, too short and plain for the credential look
    ok = _instance(tmp_path, f"print('{legacy}')\n")
    assert resolve_token(ok).get_secret_value() == legacy
    failing = _instance(tmp_path, f"import sys\nsys.stderr.write('using {legacy}: denied')\nsys.exit(1)\n")
    with pytest.raises(ConfigError) as info:
        resolve_token(failing)
    assert legacy not in str(info.value) and "denied" in str(info.value)


def test_a_configured_token_is_known_by_value_once_the_config_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[instances.w]\nurl = "https://h"\ntoken = "plain-words-token"\n')
    load_config(path)
    assert "plain-words-token" not in redact("echo plain-words-token")


def _shell_instance(script: str) -> InstanceConfig:
    return InstanceConfig(url="https://h", name="w", token_command=f"sh -x -c {shlex.quote(script)}",
                          config_path=Path("/c.toml"))


def test_a_tracing_command_that_fails_shows_its_exit_status_and_last_line_only() -> None:
    """Issue 32 item 10: `sh -x` traces every command it runs on stderr, secrets included, in shapes no rule
    knows (`PASS=hunter2-is-secret`); the error says the exit status and the last line of stderr only,
    redacted."""
    script = ("PASS=hunter2-is-secret; echo glpat-TracedSecret0123456789; echo fetching with $PASS >&2; "
              "echo 'vault: permission denied for glpat-TracedSecret0123456789' >&2; exit 3")
    with pytest.raises(ConfigError) as info:
        resolve_token(_shell_instance(script))
    message = str(info.value)
    assert "exit status 3" in message
    assert "hunter2" not in message and "glpat-TracedSecret" not in message and "fetching" not in message
    assert message.endswith("+ exit 3"), message  # the trace's last line: what ran last


def test_the_last_line_is_redacted_too() -> None:
    script = "echo glpat-TracedSecret0123456789; echo denied for glpat-TracedSecret0123456789 >&2; exit 4"
    command = InstanceConfig(url="https://h", name="w", token_command=f"sh -c {shlex.quote(script)}",
                             config_path=Path("/c.toml"))
    with pytest.raises(ConfigError) as info:
        resolve_token(command)
    assert str(info.value).endswith("exit status 4; last line of its error output: denied for [redacted]")
