"""Benchmark: the registry cleanup panel with 20,000 tags, per keystroke (budget < 50 ms).

Measures, inside a running Textual app (no network: the tags are given to the panel):
- `recompute()`: what every keystroke costs (read the inputs, validate, plan, summary, histogram);
- `flush_table()`: the tag table rebuilt with decisions, done once typing pauses (`TABLE_DELAY`).

Run: .venv/bin/python tests/bench/bench_registry_panel.py [--tags 20000] [--repeat 15]
"""

from __future__ import annotations

import argparse
import asyncio
import random
from datetime import UTC, datetime, timedelta

from bench_registry_plan import timed
from textual.app import App
from textual.widgets import Input

from labdeck.api.models.registry import RegistryRepository, RegistryTagDetail
from labdeck.tui.screens.registry.cleanup import RegistryCleanupScreen

N_TAGS = 20_000
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def make_tags(count: int, seed: int = 7) -> list[RegistryTagDetail]:
    rng = random.Random(seed)
    tags = [RegistryTagDetail(name="latest", created_at=NOW - timedelta(hours=1), digest="sha256:l",
                              total_size=50_000_000)]
    for i in range(count - 1):
        kind = rng.choice(("v", "feature-", "main-", "release-"))
        name = f"v{i % 40}.{i % 13}.{i}" if kind == "v" else f"{kind}{i:05d}"
        tags.append(RegistryTagDetail.model_construct(
            name=name, created_at=NOW - timedelta(minutes=rng.randrange(0, 400 * 24 * 60)),
            digest=f"sha256:{rng.randrange(count // 2):x}", total_size=rng.randrange(1_000_000, 90_000_000)))
    return tags


class PanelApp(App[None]):
    def __init__(self, panel: RegistryCleanupScreen) -> None:
        super().__init__()
        self.panel = panel

    def on_mount(self) -> None:
        self.push_screen(self.panel)


async def main(count: int = N_TAGS, repeat: int = 15) -> None:
    tags = make_tags(count)
    repo = RegistryRepository(id=1, name="nightly", path="acme/app/nightly", project_id=1)
    panel = RegistryCleanupScreen(repo, tags, now=lambda: NOW)
    panel.lock_remaining = lambda: None  # type: ignore[method-assign]  # no session in this bench
    app = PanelApp(panel)
    async with app.run_test(size=(150, 50)) as pilot:
        await pilot.pause()
        delete, keep = panel.query_one("#cleanup-delete", Input), panel.query_one("#cleanup-keep", Input)
        older = panel.query_one("#cleanup-older-than", Input)
        delete.value, keep.value, older.value = r"v.*|feature-.*", r"v1\..*", "90d"
        await pilot.pause()
        counter = iter(range(10_000))

        def keystroke_pattern() -> None:
            delete.value = f"v.*|feature-{next(counter)}.*"  # a new RE2 pass, as when typing a pattern
            panel.recompute()

        days = iter(range(1, 10_000))

        def keystroke_duration() -> None:
            older.value = f"{next(days)}d"
            panel.recompute()

        med, worst = timed(keystroke_pattern, repeat)
        print(f"keystroke in a pattern, {count} tags (plan + summary + histogram): "
              f"median {med:.1f} ms, max {worst:.1f} ms")
        med, worst = timed(keystroke_duration, repeat)
        print(f"keystroke in older_than (patterns cached): median {med:.1f} ms, max {worst:.1f} ms")
        med, worst = timed(panel.flush_table, repeat=min(5, repeat))
        print(f"table rebuilt after a pause in typing: median {med:.1f} ms, max {worst:.1f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tags", type=int, default=N_TAGS)
    parser.add_argument("--repeat", type=int, default=15, help="keystrokes of each kind measured")
    args = parser.parse_args()
    asyncio.run(main(args.tags, args.repeat))
