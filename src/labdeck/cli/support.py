"""What the headless commands (`labdeck api`, `labdeck registry plan`) share: usage errors, the instance to
talk to (config or `--demo`), terminal-safe JSON, and one-line errors instead of tracebacks."""

from __future__ import annotations

import argparse
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, NoReturn

if TYPE_CHECKING:
    import httpx

    from labdeck.api.client import ApiClient
    from labdeck.api.registry import RegistryService
    from labdeck.api.settings import ConnectionSettings

DEMO_URL = "http://sandbox.test"
DEMO_TOKEN = "glpat-sandbox-root"  # the sandbox's seeded root token: public, not a secret


class UsageError(Exception):
    """A bad command line, field, file or rule: exit status 2. `prog` names the command whose `--help`
    explains it (`labdeck registry plan`), when it is not the whole command's."""

    def __init__(self, message: str, prog: str | None = None) -> None:
        super().__init__(message)
        self.prog = prog


class UsageParser(argparse.ArgumentParser):
    """An ArgumentParser that raises `UsageError` (naming its own `prog`, a subcommand's for a subcommand's
    parser) instead of exiting."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self.prog)


def render_json(value: Any) -> str:
    """Pretty JSON (2-space indent), encoded by orjson (`cli.json_out`, what `labdeck api` prints with),
    with DEL and C1 controls escaped too, so server text cannot drive the terminal, and the configured
    token(s) removed by value."""
    from labdeck.cli.json_out import encode

    return encode(value, pretty=True).decode("utf-8", "surrogatepass")


def connection_settings(args: argparse.Namespace) -> ConnectionSettings:
    """The sandbox's root with `--demo`, else the instance chosen from the config (`--instance`)."""
    from labdeck.config.files import load_config, select_instance

    if args.demo:
        from pydantic import SecretStr

        from labdeck.api.settings import ConnectionSettings

        return ConnectionSettings(url=DEMO_URL, token=SecretStr(DEMO_TOKEN), name="demo")
    return select_instance(load_config(args.config), args.instance).connection()


@asynccontextmanager
async def registry_session(args: argparse.Namespace, transport: httpx.AsyncBaseTransport | None
                           ) -> AsyncIterator[tuple[ApiClient, RegistryService]]:
    """The client and registry service of the `labdeck registry` commands: the chosen instance (or
    `--demo`), the tag-detail cache unless `--no-cache`, GraphQL unless `--no-graphql`."""
    from labdeck.api.client import ApiClient
    from labdeck.api.registry import RegistryService
    from labdeck.api.tag_cache import TagDetailCache

    settings = connection_settings(args)
    cache = None if args.no_cache else TagDetailCache.for_instance(settings.base_url)
    if args.demo and transport is None:
        transport = demo_transport()
    async with ApiClient(settings, transport=transport) as client:
        yield client, RegistryService(client, tag_cache=cache, graphql=not args.no_graphql)


def project_ref(text: str) -> int | str:
    """A project given on the command line: its id when all ASCII digits, else its path."""
    from labdeck.domain.digits import parse_digits

    number = parse_digits(text)
    return text if number is None else number


def demo_transport() -> httpx.AsyncBaseTransport:
    """The embedded sandbox, in-process."""
    import httpx

    from labdeck.sandbox.app import create_app

    return httpx.ASGITransport(app=create_app())


def describe_error(exc: Exception) -> str:
    """One safe line for any error (the server's message for API errors)."""
    from labdeck.api.errors import ApiError, LabdeckError
    from labdeck.domain.redaction import redact
    from labdeck.domain.text import sanitize

    if isinstance(exc, ApiError):
        return redact(exc.status_line())
    if isinstance(exc, LabdeckError):
        return redact(sanitize(str(exc)))
    return redact(sanitize(f"unexpected error: {type(exc).__name__}: {exc}"))


def fail(prog: str, message: str, status: int) -> int:
    """Print one error line (secrets removed: every exit of text is redacted) and return `status`."""
    from labdeck.domain.redaction import redact

    print(f"{prog}: {' '.join(redact(message).split())}", file=sys.stderr)
    return status


def quiet_broken_pipe() -> int:
    """Exit status 141 (128 + SIGPIPE, what gh's and git's death by SIGPIPE gives) with nothing printed:
    stdout is pointed at /dev/null, so the interpreter's last flush of what is still buffered cannot fail
    again with "Exception ignored ... BrokenPipeError"."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # a stdout with no descriptor (a test's StringIO)
        pass
    return 141


def run_guarded(prog: str, body: Callable[[], int]) -> int:
    """Run a command's body; every failure becomes one line on stderr and an exit status, never a traceback.

    2 for usage and config errors and read-only refusals (nothing was sent), 1 for API, network and
    unexpected errors, 130 when interrupted, 141 (quietly) when the reader of stdout has gone.
    """
    from labdeck.api.errors import ReadOnly
    from labdeck.config.files import ConfigError

    try:
        return body()
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except UsageError as exc:
        return fail(prog, f"{exc} (see {exc.prog or prog} --help)", 2)
    except BrokenPipeError:  # `labdeck api ... | head`: the reader left; end quietly, as gh does
        return quiet_broken_pipe()
    except (ConfigError, ReadOnly) as exc:  # a read-only refusal sent nothing: the command was refused
        return fail(prog, str(exc), 2)
    except KeyboardInterrupt:
        return fail(prog, "interrupted", 130)
    except Exception as exc:  # never a traceback: one line, whatever went wrong
        return fail(prog, describe_error(exc), 1)


def add_reading_options(parser: Any) -> None:
    """The options every `labdeck registry` command that reads tag details takes: where to read, and how."""
    parser.add_argument("--no-cache", action="store_true",
                        help="read every tag detail again (ignore and do not write the tag-detail cache)")
    parser.add_argument("--no-graphql", action="store_true",
                        help="read tag details by REST only (one request per tag), not through GraphQL")
    parser.add_argument("--instance", metavar="NAME", help="instance from the config")
    parser.add_argument("--config", metavar="FILE", help="config file (default: $LABDECK_CONFIG or XDG)")
    parser.add_argument("--demo", action="store_true", help="use the embedded sandbox as root")
