"""Entry point: the TUI, `--demo`, `labdeck api`, `labdeck sandbox serve`, `labdeck registry ...`.

Imports stay lazy: `labdeck --version` must not import Textual, httpx or pydantic.
"""

from __future__ import annotations

import argparse
import sys

from labdeck import __version__

COMMANDS = """commands (each has its own --help):
  labdeck api PATH        one authenticated REST API v4 request, printed as JSON
  labdeck access members|variables|tokens SCOPE|--instance   the access review (who, secrets, tokens)
  labdeck registry list   a project's registry repositories: path, id, tags, size
  labdeck registry plan   preview a bulk registry tag delete (deletes nothing)
  labdeck registry policy simulate a project's registry cleanup policy
  labdeck sandbox serve   serve the embedded GitLab-compatible sandbox over HTTP"""


def _tui_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="labdeck", description="Terminal console for GitLab operators.",
                                     epilog=COMMANDS, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"labdeck {__version__}")
    target = parser.add_mutually_exclusive_group()
    target.add_argument("--demo", action="store_true", help="run against the embedded sandbox as root")
    target.add_argument("--instance", metavar="NAME",
                        help="instance from the config to open (or env: GITLAB_URL, ci: CI_SERVER_URL)")
    parser.add_argument("--read-only", action="store_true", help="hide every mutating action")
    parser.add_argument("--config", metavar="FILE", help="config file (default: $LABDECK_CONFIG or XDG)")
    demo = parser.add_argument_group("demo sandbox (with --demo)")
    demo.add_argument("--edition", choices=("ce", "ee"),
                      help="GitLab edition the sandbox plays (default: ee)")
    demo.add_argument("--gitlab-version", metavar="X.Y",
                      help="GitLab version the sandbox plays (default: 17.6)")
    demo.add_argument("--demo-auth", choices=("private", "job"),
                      help="sign in to the sandbox as root (private, the default) or with its CI job token")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run labdeck; returns the process exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "api":
        from labdeck.cli.api import run_api_command

        return run_api_command(args[1:])
    if args and args[0] == "access":
        from labdeck.cli.access import run_access_command

        return run_access_command(args[1:])
    if args and args[0] == "sandbox":
        from labdeck.sandbox.serve import run_sandbox_command

        return run_sandbox_command(args[1:])
    if args and args[0] == "registry":
        from labdeck.cli.registry import run_registry_command

        return run_registry_command(args[1:])
    parser = _tui_parser()
    options = parser.parse_args(args)
    if not options.demo and (options.edition or options.gitlab_version or options.demo_auth):
        parser.error("--edition, --gitlab-version and --demo-auth go with --demo")
    if options.gitlab_version:
        from labdeck.sandbox.options import parse_gitlab_version

        try:
            parse_gitlab_version(options.gitlab_version)
        except ValueError as exc:
            parser.error(str(exc))
    from labdeck.config.files import ConfigError, load_config, select_instance

    try:
        if not options.demo:  # report a bad config or instance name before the TUI takes the terminal
            config = load_config(options.config)
            if options.instance is not None:
                select_instance(config, options.instance)
        from labdeck.tui.launch import launch

        return launch(options)
    except ConfigError as exc:
        from labdeck.domain.redaction import redact

        print(f"labdeck: {redact(str(exc))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
