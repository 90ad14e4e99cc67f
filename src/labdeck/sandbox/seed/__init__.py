"""Deterministic seed data: `build_store(options)` gives the same instance for the same `seed` and `scale`
(timestamps are relative to today's date, so dormancy and ages stay meaningful)."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime

from labdeck.sandbox.clock import Clock, SystemClock, advanceable
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.seed.access import seed_access
from labdeck.sandbox.seed.fleet import seed_fleet
from labdeck.sandbox.seed.namespaces import seed_core, seed_generated
from labdeck.sandbox.seed.people import add_job_token, seed_late_people, seed_people
from labdeck.sandbox.seed.sharing import seed_shares
from labdeck.sandbox.store import Store


@dataclass(frozen=True)
class ScaleSizes:
    users: int
    orgs: int
    subgroups: int
    projects: int


SIZES: dict[str, ScaleSizes] = {
    "tiny": ScaleSizes(users=25, orgs=0, subgroups=0, projects=0),
    "demo": ScaleSizes(users=60, orgs=6, subgroups=4, projects=90),
    "large": ScaleSizes(users=5_000, orgs=250, subgroups=4, projects=20_000),
    "huge": ScaleSizes(users=25, orgs=0, subgroups=0, projects=0),  # + virtual listings (routes/virtual.py)
}


@dataclass(frozen=True)
class SeedContext:
    """What an area's seeding function gets: its own random stream, the scale and the options."""

    rng: random.Random
    scale: str
    sizes: ScaleSizes
    options: SandboxOptions


def area_rng(seed: int, area: str) -> random.Random:
    """A random stream per area, so adding one area never changes another's data."""
    return random.Random(f"{seed}:{area}")


def build_store(options: SandboxOptions, clock: Clock | None = None) -> Store:
    """The seeded store for `options` (core data and every registered area's data)."""
    from labdeck.sandbox.areas import load_areas  # the areas import routes, which import this package

    clock = advanceable(clock or SystemClock())
    today = datetime.fromtimestamp(clock.time(), UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    store = Store(clock=clock, async_delay=options.async_delay, anchor=today)
    sizes = SIZES[options.scale]
    seed_people(store, area_rng(options.seed, "people"), sizes.users)
    seed_core(store)
    seed_generated(store, area_rng(options.seed, "namespaces"), sizes.orgs, sizes.subgroups, sizes.projects)
    seed_late_people(store)
    seed_shares(store)
    gateway = store.project_by_path("acme/platform/api-gateway")
    assert gateway is not None
    add_job_token(store, gateway.id)
    for area in load_areas():
        if area.seed is not None:
            area.seed(store, SeedContext(area_rng(options.seed, area.name), options.scale, sizes, options))
    seed_fleet(store, area_rng(options.seed, "fleet"), options.scale)  # last: no other area changes
    seed_access(store, area_rng(options.seed, "access"), options.scale)  # the access review's, in the fleet
    store.touch()
    return store
