"""The config written back as TOML (`config_to_toml`, for `save_config`): the inverse of
`schema.parse_config`, defaults left out, unknown keys kept where they were read."""

from __future__ import annotations

from typing import Any

from labdeck.api.settings import Timeouts
from labdeck.config.schema import TIMEOUT_KEYS, Config, InstanceConfig


def _instance_to_toml(instance: InstanceConfig) -> dict[str, Any]:
    out: dict[str, Any] = {"url": instance.url, "auth": instance.auth}
    if instance.token_command is not None:
        out["token_command"] = instance.token_command
    if instance.token_env is not None:
        out["token_env"] = instance.token_env
    if instance.token is not None:
        out["token"] = instance.token.get_secret_value()
    if instance.sudo:
        out["sudo"] = instance.sudo
    out["verify_tls"] = instance.verify_tls
    if instance.ca_file:
        out["ca_file"] = instance.ca_file
    if instance.timeouts != Timeouts():
        out["timeout"] = {k: getattr(instance.timeouts, k) for k in TIMEOUT_KEYS}
    out["read_only"] = instance.read_only
    out["concurrency"] = instance.concurrency
    if instance.max_pages != 10_000:
        out["max_pages"] = instance.max_pages
    if instance.max_list_rows != 10_000:
        out["max_list_rows"] = instance.max_list_rows
    out.update({k: v for k, v in instance.extra.items() if k not in out})
    return out


def config_to_toml(config: Config) -> dict[str, Any]:
    """The TOML document for `config` (the inverse of `parse_config`, unknown keys kept)."""
    out: dict[str, Any] = {}
    if config.default_instance is not None:
        out["default_instance"] = config.default_instance
    if config.theme is not None:
        out["theme"] = config.theme
    if config.persist_cache:
        out["persist_cache"] = True
    if config.watch:
        out["watch"] = dict(config.watch)
    out.update({k: v for k, v in config.extra.items() if not isinstance(v, dict)})
    if config.instances:
        out["instances"] = {name: _instance_to_toml(i) for name, i in config.instances.items()
                            if i.source == "config"}
    if config.keymap:
        out["keymap"] = dict(config.keymap)
    if config.views:
        out["views"] = {name: {"query": v.query, "scope": v.scope, **{k: x for k, x in v.extra.items()
                                                                      if k not in ("query", "scope")}}
                        for name, v in config.views.items()}
    out.update({k: v for k, v in config.extra.items() if isinstance(v, dict) and k not in out})
    return out
