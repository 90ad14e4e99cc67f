"""The config's data model (`Config`, `InstanceConfig`, `SavedView`) and its checked mapping to and from TOML.

`parse_config` turns the dict `tomllib` read into a `Config`, raising `ConfigError` with one message that
names the file, the dotted key (`instances.work.auth`) and what is wrong; unknown keys become warnings and are
kept (in `extra`) so that saving the config (the inverse mapping) does not drop them. Tokens are held as
`SecretStr` and never appear in a repr or an error message.
"""

from __future__ import annotations

import dataclasses
import math
import re
import ssl
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from pydantic import SecretStr

from labdeck.api.settings import AuthKind, ConnectionSettings, Timeouts
from labdeck.config.errors import ConfigError
from labdeck.config.tokens import resolve_token
from labdeck.config.urls import transport_warnings, url_problem
from labdeck.domain.redaction import register_secret

AUTH_KINDS: tuple[str, ...] = get_args(AuthKind)
TIMEOUT_KEYS = ("connect", "read", "pool", "deadline")
MAX_TIMEOUT = 86_400.0  # a day: beyond that a timeout is a typo (and huge values overflow socket timeouts)
MAX_CONCURRENCY = 1000
MAX_PAGES = 10_000_000
_HEADER_VALUE = re.compile(r"[\x21-\x7e]+")
# Keys of the top level that are silently meaningless inside an instance table.
_TOP_LEVEL_ONLY = ("persist_cache", "theme", "default_instance")


@dataclass(frozen=True)
class InstanceConfig:
    """One `[instances.NAME]` table. Exactly one token source: `token_command`, `token_env` or `token`.

    `timeout = 30` (a number) sets the connect, read and pool timeouts and keeps the default deadline; a
    table `[instances.NAME.timeout]` sets any of connect, read, pool and deadline. `source` tells where the
    instance came from: "config", "env" (GITLAB_URL/GITLAB_TOKEN) or "ci" (CI_SERVER_URL/CI_JOB_TOKEN).
    """

    url: str
    name: str = "default"
    auth: AuthKind = "private"
    token_command: str | None = None
    token_env: str | None = None
    token: SecretStr | None = None
    sudo: str | None = None
    verify_tls: bool = True
    ca_file: str | None = None
    timeouts: Timeouts = field(default_factory=Timeouts)
    read_only: bool = False
    concurrency: int = 8
    max_pages: int = 10_000
    max_list_rows: int = 10_000
    source: str = "config"
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    config_path: Path | None = field(default=None, compare=False)

    def __repr__(self) -> str:  # no token, no token command: reprs reach crash screens and logs
        return (f"InstanceConfig(name={self.name!r}, url={self.url!r}, auth={self.auth!r}, "
                f"source={self.source!r})")

    __str__ = __repr__

    def connection(self) -> ConnectionSettings:
        """Resolve the token (running `token_command` if that is the source) into the client's settings."""
        return ConnectionSettings(
            url=self.url, token=resolve_token(self), auth=self.auth, sudo=self.sudo,
            verify_tls=self.verify_tls, ca_file=self.ca_file, timeouts=self.timeouts,
            concurrency=self.concurrency, name=self.name, read_only=self.read_only, max_pages=self.max_pages,
            max_list_rows=self.max_list_rows,
        )


@dataclass(frozen=True)
class SavedView:
    """A named issue query (`[views.NAME]`); `scope` is "instance" or "group:<full/path>"."""

    name: str
    query: str
    scope: str = "instance"
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)


@dataclass(frozen=True)
class Config:
    """The whole config file. `warnings` are for the TUI to show (unknown keys, a token in the file, ...)."""

    path: Path
    instances: Mapping[str, InstanceConfig] = field(default_factory=dict)
    default_instance: str | None = None
    theme: str | None = None
    keymap: Mapping[str, str] = field(default_factory=dict)
    views: Mapping[str, SavedView] = field(default_factory=dict)
    persist_cache: bool = False
    watch: Mapping[str, float] = field(default_factory=dict)  # `[watch]`: seconds per view, `default` for all
    warnings: tuple[str, ...] = field(default=(), compare=False)
    extra: Mapping[str, Any] = field(default_factory=dict, compare=False)
    instance_warnings: tuple[str, ...] = field(default=(), compare=False)  # those of `warnings` on instances

    def __repr__(self) -> str:
        return (f"Config(path={str(self.path)!r}, instances={sorted(self.instances)!r}, "
                f"default_instance={self.default_instance!r}, theme={self.theme!r})")

    __str__ = __repr__

    def without_instances(self) -> Config:
        """The config as `--demo` uses it (theme, keymap, views...): no instance, none of their warnings."""
        kept = tuple(w for w in self.warnings if w not in self.instance_warnings)
        return dataclasses.replace(self, instances={}, default_instance=None, warnings=kept,
                                   instance_warnings=())

    def with_theme(self, name: str | None) -> Config:
        """A copy with another theme."""
        return dataclasses.replace(self, theme=name)

    def with_instance(self, name: str, instance: InstanceConfig | None) -> Config:
        """A copy with `instance` added or replaced under `name` (`None` removes it)."""
        instances = dict(self.instances)
        if instance is None:
            instances.pop(name, None)
        else:
            instances[name] = dataclasses.replace(instance, name=name, config_path=self.path)
        default = self.default_instance if self.default_instance in instances else None
        return dataclasses.replace(self, instances=instances, default_instance=default)

    def with_default_instance(self, name: str | None) -> Config:
        """A copy whose default instance is `name` (which must be configured)."""
        if name is not None and name not in self.instances:
            raise ConfigError(f"{self.path}: default_instance: no instance named {name!r}")
        return dataclasses.replace(self, default_instance=name)

    def with_view(self, name: str, view: SavedView | None) -> Config:
        """A copy with the saved view `name` added or replaced (`None` removes it)."""
        views = dict(self.views)
        if view is None:
            views.pop(name, None)
        else:
            views[name] = dataclasses.replace(view, name=name)
        return dataclasses.replace(self, views=views)


class _Reader:
    """Checks values of one file, collecting warnings; every error names the file and the dotted key."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.warnings: list[str] = []

    def fail(self, key: str, problem: str) -> ConfigError:
        return ConfigError(f"{self.path}: {key}: {problem}")

    def unknown(self, table: Mapping[str, Any], known: tuple[str, ...], prefix: str,
                quiet: tuple[str, ...] = ()) -> dict[str, Any]:
        """Keys not in `known`, kept so a save does not drop them; each warned about (but `quiet` ones,
        which have a warning of their own)."""
        extra = {k: v for k, v in table.items() if k not in known}
        for key in extra:
            if key not in quiet:
                self.warnings.append(f"{self.path}: unknown key {prefix}{key} (ignored)")
        return extra

    def table(self, data: Mapping[str, Any], key: str, dotted: str) -> Mapping[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, dict):
            raise self.fail(dotted, f"must be a table, not {_kind(value)}")
        return value

    def string(self, data: Mapping[str, Any], key: str, dotted: str, *, required: bool = False) -> str | None:
        if key not in data:
            if required:
                raise self.fail(dotted, "is missing")
            return None
        value = data[key]
        if not isinstance(value, str):
            raise self.fail(dotted, f"must be a string, not {_kind(value)}")
        if required and not value.strip():
            raise self.fail(dotted, "must not be empty")
        return value

    def boolean(self, data: Mapping[str, Any], key: str, dotted: str, default: bool) -> bool:
        value = data.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(dotted, f"must be true or false, not {_kind(value)}")
        return value

    def positive(self, value: Any, dotted: str, *, integer: bool = False,
                 maximum: float | None = None) -> float:
        allowed = (int,) if integer else (int, float)
        if isinstance(value, bool) or not isinstance(value, allowed):
            wanted = "integer" if integer else "number"
            raise self.fail(dotted, f"must be a positive {wanted}, not {_kind(value)}")
        if not math.isfinite(value):  # TOML has nan and inf; `nan <= 0` is False
            raise self.fail(dotted, f"must be a finite number, not {value}")
        if value <= 0:
            raise self.fail(dotted, f"must be greater than 0, not {value}")
        if maximum is not None and value > maximum:
            raise self.fail(dotted, f"must be at most {maximum:g}, not {value:g}")
        return value

    def header_safe(self, value: str | None, dotted: str) -> str | None:
        """A value sent in an HTTP header (a token, a sudo user): visible ASCII without spaces. The value
        itself is never quoted (it may be a secret)."""
        if value is not None and value and not _HEADER_VALUE.fullmatch(value):
            raise self.fail(dotted, "holds characters that cannot be sent in an HTTP header (a line break, a "
                                    "space, a control character or non-ASCII text)")
        return value

    def ca_file(self, value: str | None, dotted: str) -> str | None:
        """A readable file of PEM certificates: loaded with `ssl` now, so a bad one is a config error and
        not a crash when the first connection is made."""
        if not value:
            return None
        path = Path(value).expanduser()
        if not path.is_file():
            problem = "is not a file" if path.exists() else "does not exist"
            raise self.fail(dotted, f"{path} {problem}")
        try:
            ssl.create_default_context().load_verify_locations(cafile=str(path))
        except ssl.SSLError:
            raise self.fail(dotted, f"{path} holds no PEM certificate that ssl can load") from None
        except OSError as exc:
            raise self.fail(dotted, f"cannot read {path}: {exc.strerror or exc}") from None
        except (ValueError, UnicodeError):
            raise self.fail(dotted, f"{path} holds no PEM certificate that ssl can load") from None
        return str(path)


def _kind(value: Any) -> str:
    names = {bool: "a boolean", int: "an integer", float: "a number", str: "a string", list: "an array",
             dict: "a table"}
    return names.get(type(value), type(value).__name__)


_INSTANCE_KEYS = ("url", "auth", "token_command", "token_env", "token", "sudo", "verify_tls", "ca_file",
                  "timeout", "read_only", "concurrency", "max_pages", "max_list_rows")


def _timeouts(reader: _Reader, table: Mapping[str, Any], dotted: str) -> Timeouts:
    if "timeout" not in table:
        return Timeouts()
    value = table["timeout"]
    if isinstance(value, dict):
        reader.unknown(value, TIMEOUT_KEYS, f"{dotted}.timeout.")
        given = {k: reader.positive(value[k], f"{dotted}.timeout.{k}", maximum=MAX_TIMEOUT)
                 for k in TIMEOUT_KEYS if k in value}
        return Timeouts(**given)
    seconds = reader.positive(value, f"{dotted}.timeout", maximum=MAX_TIMEOUT)
    return Timeouts(connect=seconds, read=seconds, pool=seconds)


def _instance(reader: _Reader, name: str, table: Any) -> InstanceConfig:
    dotted = f"instances.{name}"
    if not isinstance(table, dict):
        raise reader.fail(dotted, f"must be a table, not {_kind(table)}")
    url = reader.string(table, "url", f"{dotted}.url", required=True) or ""
    problem = url_problem(url)
    if problem is not None:
        raise reader.fail(f"{dotted}.url", problem)
    auth = reader.string(table, "auth", f"{dotted}.auth") or "private"
    if auth not in AUTH_KINDS:
        raise reader.fail(f"{dotted}.auth", f"must be one of {', '.join(AUTH_KINDS)}, not {auth!r}")
    sources = {k: reader.string(table, k, f"{dotted}.{k}") for k in ("token_command", "token_env", "token")}
    given = [k for k, v in sources.items() if v is not None]
    if not given:
        raise reader.fail(dotted, "no token source: set token_command, token_env or token")
    if len(given) > 1:
        raise reader.fail(dotted, f"set only one token source, not {' and '.join(given)}")
    if sources["token"] is not None:
        reader.warnings.append(f"{reader.path}: {dotted}.token keeps a token in the config file; "
                               "prefer token_command or token_env")
    reader.header_safe(sources["token"], f"{dotted}.token")
    register_secret(sources["token"])  # a configured token is redacted by value from the moment it is read
    ca_file = reader.ca_file(reader.string(table, "ca_file", f"{dotted}.ca_file"), f"{dotted}.ca_file")
    verify_tls = reader.boolean(table, "verify_tls", f"{dotted}.verify_tls", True)
    reader.warnings.extend(f"{reader.path}: {dotted} {text}" for text in transport_warnings(url, verify_tls))
    for key in _TOP_LEVEL_ONLY:
        if key in table:
            reader.warnings.append(f"{reader.path}: {dotted}.{key} is ignored here: {key} belongs at the "
                                   "top level of the config, before any [instances.*] table")
    return InstanceConfig(
        url=url.rstrip("/"), name=name, auth=auth,  # type: ignore[arg-type]
        token_command=sources["token_command"], token_env=sources["token_env"],
        token=SecretStr(sources["token"]) if sources["token"] is not None else None,
        sudo=reader.header_safe(reader.string(table, "sudo", f"{dotted}.sudo"), f"{dotted}.sudo") or None,
        verify_tls=verify_tls,
        ca_file=ca_file,
        timeouts=_timeouts(reader, table, dotted),
        read_only=reader.boolean(table, "read_only", f"{dotted}.read_only", False),
        concurrency=int(reader.positive(table.get("concurrency", 8), f"{dotted}.concurrency", integer=True,
                                        maximum=MAX_CONCURRENCY)),
        max_pages=int(reader.positive(table.get("max_pages", 10_000), f"{dotted}.max_pages", integer=True,
                                      maximum=MAX_PAGES)),
        max_list_rows=int(reader.positive(table.get("max_list_rows", 10_000), f"{dotted}.max_list_rows",
                                          integer=True, maximum=10_000_000)),
        extra=reader.unknown(table, _INSTANCE_KEYS, f"{dotted}.", quiet=_TOP_LEVEL_ONLY),
        config_path=reader.path,
    )


def _view(reader: _Reader, name: str, table: Any) -> SavedView:
    dotted = f"views.{name}"
    if not isinstance(table, dict):
        raise reader.fail(dotted, f"must be a table, not {_kind(table)}")
    query = reader.string(table, "query", f"{dotted}.query", required=True) or ""
    scope = reader.string(table, "scope", f"{dotted}.scope") or "instance"
    if scope != "instance" and not (scope.startswith("group:") and scope[len("group:"):].strip("/")):
        raise reader.fail(f"{dotted}.scope", f'must be "instance" or "group:<path>", not {scope!r}')
    return SavedView(name=name, query=query, scope=scope,
                     extra=reader.unknown(table, ("query", "scope"), f"{dotted}."))


def parse_config(data: Mapping[str, Any], path: Path) -> Config:
    """Check the TOML document `data` read from `path` and build the `Config` (raises `ConfigError`)."""
    reader = _Reader(path)
    instances = {name: _instance(reader, name, table)
                 for name, table in reader.table(data, "instances", "instances").items()}
    instance_warnings = tuple(reader.warnings)  # the instances are read first
    views = {name: _view(reader, name, table) for name, table in reader.table(data, "views", "views").items()}
    keymap: dict[str, str] = {}
    for binding, keys in reader.table(data, "keymap", "keymap").items():
        if not isinstance(keys, str) or not keys.strip():
            raise reader.fail(f"keymap.{binding}", f"must be a non-empty string of keys, not {_kind(keys)}")
        keymap[binding] = keys
    default = reader.string(data, "default_instance", "default_instance")
    if default is not None and default not in instances:
        known = ", ".join(sorted(instances)) or "none configured"
        raise reader.fail("default_instance", f"no instance named {default!r} (instances: {known})")
    theme = reader.string(data, "theme", "theme")
    persist_cache = reader.boolean(data, "persist_cache", "persist_cache", False)
    watch = _watch(reader, reader.table(data, "watch", "watch"))
    top_keys = ("default_instance", "theme", "persist_cache", "instances", "keymap", "views", "watch")
    extra = reader.unknown(data, top_keys, "")
    return Config(path=path, instances=instances, default_instance=default, theme=theme, keymap=keymap,
                  views=views, persist_cache=persist_cache, watch=watch, warnings=tuple(reader.warnings),
                  extra=extra, instance_warnings=instance_warnings)


MIN_WATCH_SECONDS = 5.0
MAX_WATCH_SECONDS = 86_400.0


def _watch(reader: _Reader, table: Mapping[str, Any]) -> dict[str, float]:
    """`[watch]`: view name (or `default`) = seconds between refreshes in watch mode, 5 s to a day."""
    out: dict[str, float] = {}
    for view, seconds in table.items():
        if isinstance(seconds, bool) or not isinstance(seconds, int | float) or seconds != seconds:
            raise reader.fail(f"watch.{view}", f"must be a number of seconds, not {_kind(seconds)}")
        if not MIN_WATCH_SECONDS <= seconds <= MAX_WATCH_SECONDS:
            raise reader.fail(f"watch.{view}", f"must be between {MIN_WATCH_SECONDS:g} and "
                              f"{MAX_WATCH_SECONDS:g} seconds, not {seconds}")
        out[view] = float(seconds)
    return out
