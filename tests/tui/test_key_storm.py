"""The key storm (issue 13): seeded random key bursts against a sandbox with latency and faults must never
end the app with an error, write a crash report or leave a worker's unexpected error (see `key_storm`).
A short run in the default suite; a long one under `-m slow` (it prints how many keys it sent)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from key_storm import run_storm


@pytest.mark.parametrize("seed", [1, 2])
async def test_short_key_storm(tmp_path: Path, seed: int) -> None:
    result = await run_storm(tmp_path, seed=seed, keys=150)
    assert result.keys >= 150
    assert len(result.screens) >= 3  # it did reach several screens


LONG_KEYS = int(os.environ.get("LABDECK_STORM_KEYS", "1500"))


@pytest.mark.slow
@pytest.mark.timeout(1800)
@pytest.mark.parametrize("seed", range(10, 13))
async def test_long_key_storm(tmp_path: Path, seed: int, request: pytest.FixtureRequest) -> None:
    """Three seeds of `LABDECK_STORM_KEYS` keys each (1,500 by default); only when asked for with `-m slow`
    (about ten minutes: the default run keeps the short storm)."""
    if "slow" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("the long key storm runs with -m slow")
    result = await run_storm(tmp_path, seed=seed, keys=LONG_KEYS)
    print(f"\nkey storm seed {seed}: {result.keys} keys in {result.bursts} bursts, screens "
          f"{sorted(result.screens)}, {result.error_notifications} error notifications, "
          f"{result.exits_requested} exits requested")
    assert result.keys >= LONG_KEYS
