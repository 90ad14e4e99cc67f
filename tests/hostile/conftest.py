"""Fixtures of the hostile-server suite: `labdeck api` run in-process against a fake instance."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

import labdeck.cli.api as api_cli


@dataclass
class CliResult:
    status: int
    out: str
    err: str

    def one_clear_line(self) -> str:
        """The single error line of a failed run (asserting there is exactly one and no traceback)."""
        assert self.status == 1, (self.status, self.out, self.err)
        assert self.err.count("\n") == 1, self.err
        if self.out:  # `--paginate` writes pages as they arrive: those before the failure, never closed
            assert self.out.startswith("[") and not self.out.rstrip().endswith("]"), self.out[-80:]
        assert self.err.startswith("labdeck api: ") and "Traceback" not in self.err
        assert "unexpected error" not in self.err, self.err
        return self.err.strip()


LabdeckApi = Callable[..., CliResult]


@pytest.fixture
def labdeck_api(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> LabdeckApi:
    """`labdeck_api(argv, app, settings)`: run `labdeck api ARGV` against the ASGI `app` with `settings`."""

    def run(argv: list[str], app: Any, settings: Any) -> CliResult:
        monkeypatch.setattr(api_cli, "connection_settings", lambda args: settings)
        capsys.readouterr()
        status = api_cli.run_api_command(argv, transport=httpx.ASGITransport(app=app))
        out, err = capsys.readouterr()
        return CliResult(status, out, err)

    return run
