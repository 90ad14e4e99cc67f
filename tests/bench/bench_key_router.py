"""What the key router (`tui/type_ahead.KeyRouter`) costs a key typed into a list's filter (run on demand):

    .venv/bin/python tests/bench/bench_key_router.py [--chars 200] [--area projects] [--pace 30] [--runs 3]

Headless `LabdeckApp` against the sandbox in-process, the area's list loaded, its filter field open (`/`).
The same text is typed twice into the filter, once with the router on and once with it off (keys handed
straight to Textual, as before issue 33), and each run is repeated `--runs` times (best run kept):

- burst: every character at once into the driver's queue (a paste typed by tmux, a fast typist); the time
  until the last character is in the field, divided by the number of characters;
- paced: one character every `--pace` ms (a fast typist); for each character, the time from its sending to
  its arrival in the field (median and 95th percentile).

The router's added latency per key is the difference (router on minus off). The budget: well under one
frame (16 ms) per key.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tui"))

BUDGET_MS = 16.0
TEXT = "api-gateway platform registry cleanup deploy "


def typed(count: int) -> str:
    return (TEXT * (count // len(TEXT) + 1))[:count]


async def measure(area: str, scale: str, chars: int, pace_ms: float, routed: bool) -> dict[str, Any]:
    from snapshot_apps import make_app, sandbox, settle, until
    from textual import events
    from textual.keys import _character_to_key
    from textual.widgets import Input

    from labdeck.sandbox.clock import ManualClock
    from labdeck.tui.widgets.resource_view import ResourceView

    app = make_app(transport_factory=sandbox(ManualClock(), scale=scale)[1])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        await pilot.press("colon")
        app.screen.query_one(Input).value = area
        await pilot.press("enter")
        await until(pilot, lambda: bool(app.screen.query(ResourceView))
                    and app.screen.query_one(ResourceView).table.model.row_count > 0, "the list", within=120)
        view = app.screen.query_one(ResourceView)
        view.table.focus()
        await settle(pilot)
        await pilot.press("slash")
        await settle(pilot)
        field = view.filter_input
        assert app.screen.focused is field
        router = app.context.keys
        router.enabled = routed
        arrivals: list[float] = []
        app.screen.watch(field, "value", lambda value: arrivals.append(time.perf_counter()), init=False)
        driver = app._driver
        assert driver is not None

        def send(character: str) -> None:
            key = character if character.isalnum() else _character_to_key(character)
            event = events.Key(key, character)
            event.set_sender(app)
            driver.send_message(event)

        async def arrived(count: int) -> None:
            deadline = time.perf_counter() + 60
            while len(field.value) < count or not router.idle:
                if time.perf_counter() > deadline:
                    raise AssertionError(f"only {len(field.value)} of {count} characters arrived")
                await asyncio.sleep(0.0005)

        text = typed(chars)
        reads = router.reads
        start = time.perf_counter()
        for character in text:
            send(character)
        await arrived(len(text))
        burst = (time.perf_counter() - start) * 1000
        assert field.value == text, field.value
        burst_reads = router.reads - reads

        field.value = ""
        await settle(pilot)
        arrivals.clear()
        sent: list[float] = []
        for index, character in enumerate(text):
            sent.append(time.perf_counter())
            send(character)
            await arrived(index + 1)
            await asyncio.sleep(max(0.0, pace_ms / 1000 - (time.perf_counter() - sent[-1])))
        assert field.value == text, field.value
        latencies = [(arrival - at) * 1000 for at, arrival in zip(sent, arrivals[-len(text):], strict=True)]
        router.enabled = True
    latencies.sort()
    return {"burst_per_key": burst / chars, "burst_reads": burst_reads / chars,
            "median": statistics.median(latencies), "p95": latencies[int(0.95 * (len(latencies) - 1))]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--chars", type=int, default=200)
    parser.add_argument("--area", default="projects")
    parser.add_argument("--scale", default="tiny")
    parser.add_argument("--pace", type=float, default=30.0, help="ms between keys of the paced run")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    results: dict[bool, list[dict[str, Any]]] = {True: [], False: []}
    for _ in range(args.runs):
        for routed in (False, True):
            results[routed].append(asyncio.run(measure(args.area, args.scale, args.chars, args.pace, routed)))

    def best(routed: bool, key: str) -> float:
        return min(run[key] for run in results[routed])

    print(f"{args.chars} characters typed into the :{args.area} filter ({args.scale} sandbox), best of "
          f"{args.runs} runs")
    print(f"{'':24}{'router off':>12}{'router on':>12}{'added':>10}")
    for key, label in (("burst_per_key", "burst, ms per key"), ("median", f"paced {args.pace:g} ms, median"),
                       ("p95", f"paced {args.pace:g} ms, p95")):
        off, on = best(False, key), best(True, key)
        print(f"{label:24}{off:12.2f}{on:12.2f}{on - off:10.2f}")
    print(f"router reads of the app's state per key (burst): {best(True, 'burst_reads'):.1f}")
    added = max(best(True, key) - best(False, key) for key in ("burst_per_key", "median", "p95"))
    verdict = "within" if added < BUDGET_MS else "OVER"
    print(f"added latency per key: at most {added:.2f} ms ({verdict} the {BUDGET_MS:g} ms budget)")


if __name__ == "__main__":
    main()
