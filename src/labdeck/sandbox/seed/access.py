"""The access review's seeded cases (issue 36), relative to the store's clock, and its token records.

Every scale: personal access tokens of the stable identities (`sandbox-root`, `sandbox-alice`,
`sandbox-nosudo`: the seeded tokens, which these records stand for) and one token in each state the review
looks for: alice's `ci-pipeline` expires in 3 days, bob's `old-laptop` expired 10 days ago (GitLab still
lists it), carol's `automation` never expires, dave's `backup-script` was last used 200 days ago, erin's
`leaked` is revoked.

Demo and large, in `fleet` (seeded before this): `fleet/core` has five Owners (alice, bob, erin and frank
directly, carol from `fleet`); external.user's Developer membership of `fleet/web` ends in 5 days; the
`DEPLOY_TOKEN` variable is defined unmasked in `fleet` and again, masked, in the first project of
`fleet/edge`, beside `DEPLOY_REGION` (nothing to find); `fleet/core`'s `release-bot` group token expires in
3 days; in `fleet/data`'s first project `nightly-export` expired 2 days ago, `metrics-push` never expires
and `mirror-sync` was last used 200 days ago; `fleet/web`'s first project has `healthy-bot` (used
yesterday, a year left). Large adds personal tokens over the generated users up to `LARGE_TOKENS` in all.

A token's value is never kept here: the seeded identities' tokens are the store's (`store.tokens`, which
authenticates), linked by their digest; a rotation's new value is the answer's and the store's alone.
Bot users of group and project tokens are the area's (`TokenBot`), not listed in `/users`. No draw from
another area's random stream: the large scale's tokens come from a stream of their own.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta

from labdeck.sandbox.seed.namespaces import add_member
from labdeck.sandbox.store import Store

AREA = "access_tokens"
LARGE_TOKENS = 10_000
_SCOPES = (("api",), ("read_api",), ("read_repository",), ("read_registry", "write_registry"),
           ("api", "read_user"), ("read_api", "read_repository"))
_NAMES = ("laptop", "ci", "deploy", "backup", "renovate", "terraform", "grafana", "release", "mirror", "cli")


@dataclass
class TokenRecord:
    """One access token. `resource`: a group's or project's token (`("group", id)`), None for a personal
    one; `digest`: sha256 of the value that authenticates as it (`store.tokens`), when one does."""

    id: int
    user_id: int
    name: str
    scopes: tuple[str, ...]
    created_at: datetime
    expires_at: date | None = None
    last_used_at: datetime | None = None
    revoked: bool = False
    description: str | None = None
    resource: tuple[str, int] | None = None
    access_level: int | None = None
    digest: str | None = None
    previous_id: int | None = None


@dataclass
class TokenBot:
    """The bot user GitLab makes for a group or project token (`<kind>_<id>_bot_<hex>`)."""

    id: int
    username: str
    name: str


@dataclass
class AccessTokens:
    records: dict[int, TokenRecord] = field(default_factory=dict)
    bots: dict[int, TokenBot] = field(default_factory=dict)
    next_id: int = 0

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id


def tokens_of(store: Store) -> AccessTokens:
    return store.area(AREA, AccessTokens)


def digest(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()


def add_token(store: Store, user_id: int, name: str, scopes: tuple[str, ...], *, age_days: int,
              expires_in: int | None, used_days_ago: int | None = None, revoked: bool = False,
              resource: tuple[str, int] | None = None, access_level: int | None = None,
              value: str | None = None) -> TokenRecord:
    """A token record; times relative to the store's day (`anchor`, midnight): created `age_days` and 3
    hours before it, last used `used_days_ago` and an hour before it (never after the sandbox's now)."""
    data, day = tokens_of(store), store.anchor
    record = TokenRecord(
        data.new_id(), user_id, name, scopes, day - timedelta(days=age_days, hours=3),
        None if expires_in is None else day.date() + timedelta(days=expires_in),
        None if used_days_ago is None else day - timedelta(days=used_days_ago, hours=1),
        revoked, None, resource, access_level, None if value is None else digest(value))
    data.records[record.id] = record
    return record


def add_bot(store: Store, kind: str, owner_id: int, name: str) -> TokenBot:
    """The bot user of a new group or project token (an id of the users' own sequence)."""
    ident = store.next_id("user")
    bot = TokenBot(ident, f"{kind}_{owner_id}_bot_{digest(f'{kind}{owner_id}{name}')[:32]}", name)
    tokens_of(store).bots[bot.id] = bot
    return bot


def bot_user_json(store: Store, user_id: int, base: str) -> dict[str, object] | None:
    """A token's bot user as `GET /users/:id` shows it to an administrator (GitLab's bots are users:
    `user_type` `project_bot`, for group tokens too), or None when `user_id` is no bot of this area."""
    bot = tokens_of(store).bots.get(user_id)
    if bot is None:
        return None
    return {"id": bot.id, "username": bot.username, "name": bot.name, "state": "active", "locked": False,
            "avatar_url": None, "web_url": f"{base}/{bot.username}", "bot": True, "is_admin": False,
            "user_type": "project_bot", "external": False}


def _user(store: Store, username: str) -> int:
    user = store.user_by_username(username)
    assert user is not None, username
    return user.id


def seed_personal(store: Store) -> None:
    """The stable identities' tokens and one personal token in each state the review looks for."""
    for username, value, name, scopes in (("root", "glpat-sandbox-root", "sandbox-root", ("api", "sudo")),
                                          ("alice", "glpat-sandbox-alice", "sandbox-alice", ("api",)),
                                          ("root", "glpat-sandbox-nosudo", "sandbox-nosudo", ("api",))):
        add_token(store, _user(store, username), name, scopes, age_days=300, expires_in=None,
                  used_days_ago=0, value=value)
    add_token(store, _user(store, "alice"), "ci-pipeline", ("api",), age_days=80, expires_in=3,
              used_days_ago=1)
    add_token(store, _user(store, "bob"), "old-laptop", ("read_api",), age_days=400, expires_in=-10,
              used_days_ago=30)
    add_token(store, _user(store, "carol"), "automation", ("api",), age_days=500, expires_in=None,
              used_days_ago=2)
    add_token(store, _user(store, "dave"), "backup-script", ("read_repository",), age_days=400,
              expires_in=300, used_days_ago=200)
    add_token(store, _user(store, "erin"), "leaked", ("api",), age_days=60, expires_in=200, used_days_ago=5,
              revoked=True)


def seed_fleet_access(store: Store) -> None:
    """The fleet's members, variables and tokens of the module docstring (demo and large)."""
    from labdeck.sandbox.routes.ci_variables import Variable, state

    fleet = store.group_by_path("fleet")
    core, web, edge, data = (store.group_by_path(f"fleet/{name}") for name in ("core", "web", "edge", "data"))
    if fleet is None or core is None or web is None or edge is None or data is None:
        return
    for username in ("alice", "bob", "erin", "frank"):
        add_member(store, store.group_members, core.id, username, 50)
    add_member(store, store.group_members, web.id, "external.user", 30)
    store.group_members[web.id][_user(store, "external.user")].expires_at = \
        (store.anchor.date() + timedelta(days=5)).isoformat()
    variables = state(store)
    variables.groups[fleet.id] = [Variable("DEPLOY_TOKEN", "fleet-deploy-token-0451", protected=True),
                                  Variable("DEPLOY_REGION", "eu-west-1")]
    first = {group.id: _first_project(store, group.id) for group in (edge, data, web)}
    edge_project, web_project = first[edge.id], first[web.id]
    if edge_project is not None:
        variables.projects[edge_project] = [Variable("DEPLOY_TOKEN", "edge-deploy-token-7719",
                                                       protected=True, masked=True)]
    bot = add_bot(store, "group", core.id, "release-bot")
    add_token(store, bot.id, "release-bot", ("api",), age_days=87, expires_in=3, used_days_ago=0,
              resource=("group", core.id), access_level=40)
    project = first[data.id]
    if project is not None:
        for name, expires, used, level in (("nightly-export", -2, 40, 20), ("metrics-push", None, 3, 30),
                                           ("mirror-sync", 120, 200, 30)):
            bot = add_bot(store, "project", project, name)
            add_token(store, bot.id, name, ("read_api",) if level == 20 else ("api",), age_days=365,
                      expires_in=expires, used_days_ago=used, resource=("project", project),
                      access_level=level)
    if web_project is not None:
        bot = add_bot(store, "project", web_project, "healthy-bot")
        add_token(store, bot.id, "healthy-bot", ("read_repository",), age_days=10, expires_in=365,
                  used_days_ago=1, resource=("project", web_project), access_level=20)


def _first_project(store: Store, group_id: int) -> int | None:
    """The group's first project (read from the records: the store's indexes are built again only once the
    seeding touches it, after this)."""
    ids = [p.id for p in store.projects.values()
           if p.namespace_kind == "group" and p.namespace_id == group_id]
    return min(ids) if ids else None


def seed_many(store: Store, rng: random.Random, count: int) -> None:
    """Personal tokens over the active people until `count` tokens exist: states spread as an instance's
    are (most active, some expired, a few revoked, some never expiring)."""
    people = [u.id for u in store.users.values() if u.state == "active" and not u.bot]
    data = tokens_of(store)
    while len(data.records) < count:
        roll = rng.random()
        expires = None if roll < 0.15 else rng.randrange(-60, 0) if roll < 0.25 else rng.randrange(1, 365)
        add_token(store, rng.choice(people), f"{rng.choice(_NAMES)}-{len(data.records)}", rng.choice(_SCOPES),
                  age_days=rng.randrange(1, 900), expires_in=expires,
                  used_days_ago=None if rng.random() < 0.1 else rng.randrange(0, 400),
                  revoked=rng.random() < 0.05)


def seed_access(store: Store, rng: random.Random, scale: str) -> None:
    """Everything above for `scale` (after the fleet: no other area's records or ids change)."""
    seed_personal(store)
    if scale in ("demo", "large"):
        seed_fleet_access(store)
    if scale == "large":
        seed_many(store, rng, LARGE_TOKENS)
