"""`labdeck api` against a faulty sandbox: exit 0 with the whole JSON, or exit 1 with one line on stderr
(status and message), never a traceback and never a partial list."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

import labdeck.api_cli as api_cli
from labdeck.api.settings import ConnectionSettings, RetryPolicy
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store

FAULTS = "badjson=0.3,503=0.2,reset=0.1,429=0.2"
STORE = build_store(SandboxOptions(scale="tiny"), ManualClock())


class SocketLike(httpx.ASGITransport):
    """The in-process sandbox; a dropped connection surfaces as it does over a socket (`ReadError`)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        try:
            return await super().handle_async_request(request)
        except ConnectionResetError as exc:
            raise httpx.ReadError(str(exc), request=request) from None


def fast(args: Any) -> ConnectionSettings:
    return ConnectionSettings(url="http://sandbox.test", token=SecretStr("glpat-sandbox-root"), name="demo",
                              retry=RetryPolicy(max_attempts=3, base_delay=0.001, max_delay=0.002,
                                                max_total=0.01))


@pytest.mark.parametrize("argv", [["users", "--paginate", "-f", "per_page=5"], ["user"],
                                  ["projects/acme%2Fplatform%2Fapi-gateway/registry/repositories"]])
def test_labdeck_api_under_faults(argv: list[str], monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(api_cli, "connection_settings", fast)
    assert api_cli.run_api_command(argv, transport=SocketLike(create_app(store=STORE))) == 0
    expected = json.loads(capsys.readouterr().out)
    codes = []
    for seed in range(10):
        app = create_app(SandboxOptions(scale="tiny", faults=FAULTS, fault_seed=seed), store=STORE)
        status = api_cli.run_api_command(argv, transport=SocketLike(app))
        out, err = capsys.readouterr()
        codes.append(status)
        if status == 0:
            assert json.loads(out) == expected and err == ""
        else:
            assert status == 1 and out == "" and err.count("\n") == 1
            assert err.startswith("labdeck api: ") and "Traceback" not in err
    assert 1 in codes  # the faults did bite
