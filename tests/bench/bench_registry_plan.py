"""Benchmark: registry cleanup plan recompute for 20,000 tags (budget: well under 50 ms per recompute).

Run: PYTHONPATH=src .venv/bin/python tests/bench/bench_registry_plan.py [--tags 20000] [--repeat 15]
(PYTHONPATH is not needed once labdeck is installed in the venv)
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules, TagInfo, plan

N_TAGS = 20_000
NOW = datetime(2026, 1, 1, tzinfo=UTC)


def make_tags(count: int, seed: int = 7) -> list[TagInfo]:
    rng = random.Random(seed)
    tags = [TagInfo("latest", NOW - timedelta(hours=1), "sha256:latest", 50_000_000)]
    for i in range(count - 1):
        kind = rng.choice(("v", "feature-", "main-", "release-"))
        name = f"v{i % 40}.{i % 13}.{i}" if kind == "v" else f"{kind}{i:05d}"
        created = NOW - timedelta(minutes=rng.randrange(0, 400 * 24 * 60)) if rng.random() > 0.01 else None
        digest = f"sha256:{rng.randrange(count // 2):x}"
        tags.append(TagInfo(name, created, digest, rng.randrange(1_000_000, 90_000_000)))
    return tags


def timed(fn: Callable[[], object], repeat: int = 15) -> tuple[float, float]:
    """Median and worst of `repeat` runs of `fn`, in milliseconds (the registry benchmarks share it)."""
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples), max(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tags", type=int, default=N_TAGS)
    parser.add_argument("--repeat", type=int, default=15, help="runs of each recompute measured")
    args = parser.parse_args()
    count = args.tags
    tags = make_tags(count)
    rules = CleanupRules(r"v.*|feature-.*", r"v1\..*", keep_n=10, older_than="90d")

    med, worst = timed(lambda: plan(tags, rules, NOW), repeat=min(5, args.repeat))
    print(f"cold plan (planner build + 2 patterns + plan), {count} tags: "
          f"median {med:.1f} ms, max {worst:.1f} ms")

    planner = CleanupPlanner(tags)
    planner.plan(rules, NOW)
    keep_ns = iter(range(10_000))
    med, worst = timed(lambda: planner.plan(CleanupRules(rules.name_regex_delete, rules.name_regex_keep,
                                                         keep_n=next(keep_ns), older_than="30d"), NOW),
                       repeat=args.repeat)
    print(f"recompute (keep_n / older_than edited, patterns cached): median {med:.1f} ms, max {worst:.1f} ms")

    counter = iter(range(10_000))
    med, worst = timed(lambda: planner.plan(CleanupRules(f"v.*|feature-{next(counter)}.*", r"v1\..*",
                                                         keep_n=10, older_than="90d"), NOW),
                       repeat=args.repeat)
    print(f"recompute (delete pattern edited: one new RE2 pass): median {med:.1f} ms, max {worst:.1f} ms")

    result = planner.plan(rules, NOW)
    print(f"plan: {result}")


if __name__ == "__main__":
    main()
