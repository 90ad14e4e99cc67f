"""`labdeck api` against a faulty sandbox: exit 0 with the whole JSON, or exit 1 with one line on stderr
(status and message), never a traceback and never a partial list that reads as whole: `--paginate` writes
pages as they arrive, so a failure after some pages leaves an unterminated array (not valid JSON)."""

from __future__ import annotations

import json
from typing import Any

import pytest

import labdeck.cli.api as api_cli
from faulty_sandbox import FAULTS, SocketLike, fast_retry_settings
from labdeck.api.settings import ConnectionSettings
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed import build_store

STORE = build_store(SandboxOptions(scale="tiny"), ManualClock())


def fast(args: Any) -> ConnectionSettings:
    return fast_retry_settings("demo")


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
            assert status == 1 and err.count("\n") == 1
            if out:  # pages written before the failure: a prefix of the answer, never a valid list
                whole = json.dumps(expected, separators=(",", ":"), ensure_ascii=False)
                assert "--paginate" in argv and whole.startswith(out) and len(out) < len(whole)
            assert err.startswith("labdeck api: ") and "Traceback" not in err
    assert 1 in codes  # the faults did bite
