"""`launch(options)`: build the app from the config (or the demo sandbox) and run it; returns the exit code.

`options` come from `labdeck.cli.main`: `demo`, `instance`, `read_only`, `config`. A bad config prints one
line and exits 2; with no instance at all the app opens its first-run screen.
"""

from __future__ import annotations

import sys
from typing import Any, Protocol

DEMO_TOKEN = "glpat-sandbox-root"  # the sandbox's seeded administrator; not a secret
DEMO_JOB_TOKEN = "glcbt-sandbox-job"  # the sandbox's seeded CI job token (project acme/platform/api-gateway)


class LaunchOptions(Protocol):
    demo: bool
    instance: str | None
    read_only: bool
    config: str | None


def demo_settings(base_url: str, auth: str = "private") -> Any:
    """Connection settings for the embedded sandbox: root, or (`auth="job"`) its CI job token."""
    from pydantic import SecretStr

    from labdeck.api.settings import ConnectionSettings

    if auth == "job":
        return ConnectionSettings(url=base_url, token=SecretStr(DEMO_JOB_TOKEN), auth="job", name="demo")
    return ConnectionSettings(url=base_url, token=SecretStr(DEMO_TOKEN), name="demo")


def build_app(options: LaunchOptions) -> tuple[Any, Any]:
    """The app and the running demo sandbox (None unless `--demo`); raises ConfigError."""
    from labdeck.config.files import load_config, select_instance
    from labdeck.tui.app import LabdeckApp

    config = load_config(options.config)
    sandbox = None
    if options.demo:  # the demo reads the theme, keymap and views, never an instance (nor warns of one)
        config = config.without_instances()
        from labdeck.sandbox.options import DEFAULT_GITLAB_VERSION, SandboxOptions
        from labdeck.sandbox.serve import start_process

        # A child process seeds and serves the sandbox on the other core while the TUI starts; its socket
        # already listens, so the first requests just wait for it.
        sandbox = start_process(SandboxOptions(
            scale="demo", edition=getattr(options, "edition", None) or "ee",
            gitlab_version=getattr(options, "gitlab_version", None) or DEFAULT_GITLAB_VERSION))
        settings = demo_settings(sandbox.base_url, getattr(options, "demo_auth", None) or "private")
    elif not config.instances and options.instance is None and not _env_instance_available():
        settings = None  # first run
    else:
        settings = select_instance(config, options.instance).connection()
    return LabdeckApp(config, settings, read_only=bool(options.read_only)), sandbox


def _env_instance_available() -> bool:
    from labdeck.config.files import env_instances

    return bool(env_instances())


def launch(options: LaunchOptions) -> int:
    from labdeck.config.files import ConfigError

    try:
        app, sandbox = build_app(options)
    except ConfigError as error:
        print(f"labdeck: {error}", file=sys.stderr)
        return 2
    try:
        app.run()
    finally:
        if sandbox is not None:
            sandbox.stop()
    return app.return_code or 0
