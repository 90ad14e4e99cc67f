"""Resolving an instance's token from its source: an environment variable, a command, or the config file.

`token_command` runs without a shell (`shlex.split`), with a 20 s timeout and no stdin; its stdout, stripped,
is the token (only the first line when it prints several, as `pass show` does for multi-line entries). A
failing command gives a `ConfigError` holding its exit status and the last line of its stderr, redacted,
never its stdout (which may hold a secret) nor the rest of its stderr (a trace of every command it ran).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Mapping
from typing import TYPE_CHECKING

from pydantic import SecretStr

from labdeck.config.errors import ConfigError
from labdeck.domain.redaction import redact, redact_secret_like, register_secret
from labdeck.domain.text import sanitize

if TYPE_CHECKING:
    from labdeck.config.schema import InstanceConfig

COMMAND_TIMEOUT = 20.0
_STDERR_LIMIT = 300


def _where(instance: InstanceConfig, key: str) -> str:
    origin = f"{instance.config_path}: " if instance.config_path is not None else ""
    prefix = f"instances.{instance.name}." if instance.source == "config" else f"instance {instance.name}: "
    return f"{origin}{prefix}{key}"


def _from_env(instance: InstanceConfig, name: str, environ: Mapping[str, str]) -> SecretStr:
    value = environ.get(name, "").strip()
    if not value:
        raise ConfigError(f"{_where(instance, 'token_env')}: environment variable {name} is not set")
    return SecretStr(value)


def _stderr_line(stderr: bytes, stdout: bytes = b"") -> str:
    """The last line of the command's stderr, with secrets removed. Only the last: a command that traces
    itself (`sh -x`, `set -x`) writes every command it runs there, with the secrets it handles in shapes no
    rule can know (`+ PASS=hunter2`); the last line is what failed. Removed from it: by value, registered
    tokens (one this command fetched before, any configured one) and anything the command printed on stdout
    (a failing command may have printed the token before it failed), lines and long words; by shape,
    GitLab's token shapes and any run that reads as a credential (`+ T=5f0c...`, a 64-hex OAuth token)."""
    out = stdout.decode("utf-8", errors="replace")
    printed = [line.strip() for line in out.splitlines()] + [w for w in out.split() if len(w) >= 16]
    lines = [line for line in stderr.decode("utf-8", errors="replace").splitlines() if line.strip()]
    text = redact_secret_like(redact(lines[-1] if lines else "", [p for p in printed if len(p) >= 8]))
    text = " ".join(text.split())
    if len(text) > _STDERR_LIMIT:
        text = text[:_STDERR_LIMIT] + "..."
    return sanitize(text) or "no error output"


def _from_command(instance: InstanceConfig, command: str, timeout: float) -> SecretStr:
    where = _where(instance, "token_command")
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise ConfigError(f"{where}: cannot parse the command: {exc}") from None
    if not argv:
        raise ConfigError(f"{where}: the command is empty")
    try:
        done = subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, timeout=timeout,
                              check=False)
    except FileNotFoundError:
        raise ConfigError(f"{where}: command not found: {sanitize(argv[0])}") from None
    except PermissionError:
        raise ConfigError(f"{where}: command is not executable: {sanitize(argv[0])}") from None
    except subprocess.TimeoutExpired:
        raise ConfigError(f"{where}: the command did not finish within {timeout:g} s") from None
    except OSError as exc:
        raise ConfigError(f"{where}: cannot run the command: {exc.strerror}") from None
    if done.returncode != 0:
        raise ConfigError(f"{where}: the command failed with exit status {done.returncode}; last line of "
                          f"its error output: {_stderr_line(done.stderr, done.stdout)}")
    lines = done.stdout.decode("utf-8", errors="replace").strip().splitlines()
    token = lines[0].strip() if lines else ""
    if not token:
        raise ConfigError(f"{where}: the command printed no token")
    return SecretStr(token)


def resolve_token(instance: InstanceConfig, environ: Mapping[str, str] | None = None,
                  timeout: float = COMMAND_TIMEOUT) -> SecretStr:
    """The instance's token from `token_env`, `token_command` or `token` (raises `ConfigError`)."""
    if instance.token_env is not None:
        token = _from_env(instance, instance.token_env, os.environ if environ is None else environ)
    elif instance.token_command is not None:
        token = _from_command(instance, instance.token_command, timeout)
    elif instance.token is not None:
        token = instance.token
    else:
        raise ConfigError(f"{_where(instance, 'token')}: no token source: set token_command, token_env or "
                          "token")
    register_secret(token.get_secret_value())  # every later redaction removes it, whatever its shape
    return token

