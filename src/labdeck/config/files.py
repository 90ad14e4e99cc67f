"""labdeck's TOML config: where it lives, loading and checking it, atomic 0600 saves, choosing the instance.

The file is `$LABDECK_CONFIG` if set, else `$XDG_CONFIG_HOME/labdeck/config.toml` (`~/.config` by default).
A missing file is an empty config. A bad one raises `ConfigError` with one line naming the file, the key and
what is wrong; `labdeck` prints it and exits 2. The model and its checks are in `labdeck.config.schema`,
token resolution (`InstanceConfig.connection()`) in `labdeck.config.tokens`.
"""

from __future__ import annotations

import os
import stat
import tomllib
from collections.abc import Mapping
from pathlib import Path

from labdeck.api.private_files import write_private
from labdeck.config.errors import ConfigError
from labdeck.config.schema import Config, InstanceConfig, SavedView, parse_config
from labdeck.config.to_toml import config_to_toml

__all__ = [
    "Config", "ConfigError", "InstanceConfig", "SavedView", "config_path", "env_instances", "load_config",
    "save_config", "select_instance",
]


def config_path(environ: Mapping[str, str] | None = None) -> Path:
    """`$LABDECK_CONFIG`, else `$XDG_CONFIG_HOME/labdeck/config.toml` (XDG default `~/.config`)."""
    env = os.environ if environ is None else environ
    if env.get("LABDECK_CONFIG"):
        return Path(env["LABDECK_CONFIG"]).expanduser()
    base = env.get("XDG_CONFIG_HOME") or ""
    root = Path(base).expanduser() if base and Path(base).is_absolute() else Path.home() / ".config"
    return root / "labdeck" / "config.toml"


def load_config(path: str | os.PathLike[str] | None = None) -> Config:
    """Read and check the config at `path` (default `config_path()`); a missing file gives an empty Config."""
    target = Path(path).expanduser() if path is not None else config_path()
    try:
        raw = target.read_bytes()
        mode = target.stat().st_mode
    except FileNotFoundError:
        return Config(path=target)
    except OSError as exc:
        raise ConfigError(f"{target}: cannot read the config: {exc.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise ConfigError(f"{target}: the config is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{target}: invalid TOML: {exc}") from None
    config = parse_config(data, target)
    holds_token = any(i.token is not None for i in config.instances.values())
    if holds_token and mode & (stat.S_IRWXG | stat.S_IRWXO):
        warning = (f"{target}: holds a token but is readable by group or others "
                   f"(mode {stat.S_IMODE(mode):04o}); run: chmod 600 {target}")
        config = _with_warnings(config, warning)
    return config


def _with_warnings(config: Config, warning: str) -> Config:
    """`config` with one more warning about its instances' tokens."""
    import dataclasses

    return dataclasses.replace(config, warnings=(*config.warnings, warning),
                               instance_warnings=(*config.instance_warnings, warning))


def save_config(config: Config) -> None:
    """Write `config` to `config.path` atomically, mode 0600 from creation (a new folder gets 0700).

    Only the first-run screen calls this: labdeck never rewrites a config the user edits (what it remembers
    itself, the theme and the last download folder, goes to its state file, `labdeck.config.state`). A crash
    or a failing write leaves the old file intact; a symlinked config (dotfiles) is written through the link.
    """
    import tomli_w

    try:
        text = tomli_w.dumps(config_to_toml(config))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{config.path}: cannot write the config: {exc}") from None
    try:
        write_private(config.path, text.encode("utf-8"), follow_link=True)
    except OSError as exc:
        raise ConfigError(f"{config.path}: cannot write the config: {exc.strerror or exc}") from None


def env_instances(environ: Mapping[str, str] | None = None) -> dict[str, InstanceConfig]:
    """Instances the environment defines: `env` from GITLAB_URL + GITLAB_TOKEN (private token), and `ci`
    from CI_SERVER_URL + CI_JOB_TOKEN (job token) inside a CI job. The tokens stay in the environment."""
    env = os.environ if environ is None else environ
    found: dict[str, InstanceConfig] = {}
    if env.get("GITLAB_URL") and env.get("GITLAB_TOKEN"):
        found["env"] = InstanceConfig(url=env["GITLAB_URL"].rstrip("/"), name="env", auth="private",
                                      token_env="GITLAB_TOKEN", source="env")
    if env.get("CI_SERVER_URL") and env.get("CI_JOB_TOKEN"):
        found["ci"] = InstanceConfig(url=env["CI_SERVER_URL"].rstrip("/"), name="ci", auth="job",
                                     token_env="CI_JOB_TOKEN", source="ci")
    return found


def select_instance(config: Config, name: str | None = None,
                    environ: Mapping[str, str] | None = None) -> InstanceConfig:
    """The instance to open, in this order of precedence:

    1. an explicit `--instance NAME`: the configured instance of that name, else `env` (GITLAB_URL +
       GITLAB_TOKEN) or `ci` (CI_SERVER_URL + CI_JOB_TOKEN) from the environment;
    2. the config's `default_instance` (or its only instance, when exactly one is configured);
    3. GITLAB_URL + GITLAB_TOKEN, as the instance `env`;
    4. CI_SERVER_URL + CI_JOB_TOKEN inside a CI job, as the instance `ci` (auth `job`).

    Raises `ConfigError` when nothing matches.
    """
    from_env = env_instances(environ)
    if name is not None:
        if name in config.instances:
            return config.instances[name]
        if name in from_env:
            return from_env[name]
        if name == "env":
            raise ConfigError("instance env: set GITLAB_URL and GITLAB_TOKEN")
        if name == "ci":
            raise ConfigError("instance ci: CI_SERVER_URL and CI_JOB_TOKEN are not set (not in a CI job?)")
        known = ", ".join(sorted(config.instances)) or "none configured"
        raise ConfigError(f"{config.path}: no instance named {name!r} (instances: {known})")
    if config.default_instance is not None:
        return config.instances[config.default_instance]
    if len(config.instances) == 1:
        return next(iter(config.instances.values()))
    for fallback in ("env", "ci"):
        if fallback in from_env:
            return from_env[fallback]
    if config.instances:
        raise ConfigError(f"{config.path}: several instances and no default_instance: "
                          "set default_instance or pass --instance NAME")
    raise ConfigError(f"no instance configured: add an [instances.NAME] table to {config.path}, "
                      "or set GITLAB_URL and GITLAB_TOKEN")
