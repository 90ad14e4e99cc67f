"""Seed users and tokens: the stable identities, one user in every moderation condition of GitLab's
moderation docs, internal and bot users, a sign-up queue (several people waiting for approval, who have never
signed in), long-idle users in the states where inactivity matters (active past the dormant threshold,
blocked, banned, deactivated, one who never signed in at all), then as many ordinary people as the scale
asks for."""

from __future__ import annotations

import random
from datetime import datetime, timedelta

from labdeck.sandbox.seed.names import FIRST_NAMES, LAST_NAMES
from labdeck.sandbox.store import Store, Token, User

ROOT_TOKEN = "glpat-sandbox-root"
ALICE_TOKEN = "glpat-sandbox-alice"
NOSUDO_TOKEN = "glpat-sandbox-nosudo"
JOB_TOKEN = "glcbt-sandbox-job"

# username, name, state, flags: the accounts every scale has, with fixed ids 1..N in this order.
SPECIAL_USERS: tuple[tuple[str, str, str, dict[str, object]], ...] = (
    ("root", "Administrator", "active", {"is_admin": True}),
    ("alice", "Alice Liddell", "active", {}),
    ("bob", "Bob Builder", "active", {}),
    ("carol", "Carol Danvers", "active", {"two_factor_enabled": True}),
    ("dave", "Dave Lister", "active", {}),
    ("erin", "Erin Brockovich", "active", {}),
    ("frank", "Frank Poole", "active", {}),
    ("pending.user", "Penny Pending", "blocked_pending_approval", {"signed_up_days": 2}),
    ("blocked.user", "Blake Blocked", "blocked", {}),
    ("ldap.user", "Linus Directory", "ldap_blocked", {}),
    ("banned.user", "Bart Banned", "banned", {}),
    ("deactivated.user", "Dana Deactivated", "deactivated", {"idle_days": 400}),
    ("dormant.user", "Doris Dormant", "active", {"idle_days": 200}),
    ("external.user", "Ezra External", "active", {"external": True}),
    ("ghost", "Ghost User", "active", {"bot": True, "user_type": "ghost"}),
    ("support-bot", "GitLab Support Bot", "active", {"bot": True, "user_type": "support_bot"}),
    ("alert-bot", "GitLab Alert Bot", "active", {"bot": True, "user_type": "alert_bot"}),
    ("project_1_bot_3f2a", "Deploy bot", "active", {"bot": True, "user_type": "project_bot"}),
)
# Added once every group and project exists (`seed_late_people`), so that no id seeded before them moves:
# the sign-up queue, then long-idle users.
LATE_USERS: tuple[tuple[str, str, str, dict[str, object]], ...] = (
    ("nadia.new", "Nadia Newcomer", "blocked_pending_approval", {"signed_up_days": 0}),
    ("omar.applicant", "Omar Applicant", "blocked_pending_approval", {"signed_up_days": 1}),
    ("priya.signup", "Priya Signup", "blocked_pending_approval", {"signed_up_days": 3}),
    ("quentin.waiting", "Quentin Waiting", "blocked_pending_approval", {"signed_up_days": 9}),
    ("spam.bot.4711", "Cheap Watches 4711", "blocked_pending_approval", {"signed_up_days": 1}),
    ("rosa.forgotten", "Rosa Forgotten", "blocked_pending_approval", {"signed_up_days": 75}),
    # long idle, in every state where that matters
    ("stale.blocked", "Stan Stale", "blocked", {"idle_days": 520}),
    ("stale.banned", "Bea Longgone", "banned", {"idle_days": 410}),
    ("never.signed.in", "Nev Ernever", "active", {"never_signed_in": True}),
)


def _add_user(store: Store, username: str, name: str, state: str, created: datetime,
              last_activity: datetime | None, **flags: object) -> User:
    user = User(id=store.next_id("user"), username=username, name=name,
                email=f"{username.replace('_', '.')}@example.com", state=state, created_at=created,
                last_activity_on=last_activity, last_sign_in_at=last_activity,
                namespace_id=store.next_id("namespace"), **flags)  # type: ignore[arg-type]
    store.users[user.id] = user
    return user


def _add_special(store: Store, specials: tuple[tuple[str, str, str, dict[str, object]], ...]) -> None:
    """Add fixed accounts in order: `idle_days` since their last activity, `signed_up_days` for people
    waiting for approval (signed up lately, never signed in), `never_signed_in` for no activity at all."""
    anchor = store.anchor
    offset = len(store.users)
    for index, (username, name, state, flags) in enumerate(specials, start=offset):
        extra = dict(flags)
        idle = int(extra.pop("idle_days", index % 5))  # type: ignore[call-overload]
        signed_up = extra.pop("signed_up_days", None)
        never = bool(extra.pop("never_signed_in", False))
        if signed_up is not None:
            created = anchor - timedelta(days=int(signed_up), hours=3 + index % 12)  # type: ignore[call-overload]
            _add_user(store, username, name, state, created, None, **extra)
        else:
            _add_user(store, username, name, state, anchor - timedelta(days=900 - index % 100),
                      None if never else anchor - timedelta(days=idle, hours=index % 24), **extra)


def seed_late_people(store: Store) -> None:
    """The sign-up queue and the long-idle users (`LATE_USERS`), after the groups and projects."""
    _add_special(store, LATE_USERS)


def seed_people(store: Store, rng: random.Random, count: int) -> None:
    """Create the special users, then ordinary users up to `count` users in all, and the seeded tokens
    (`seed_late_people` adds its users on top, later)."""
    anchor = store.anchor
    _add_special(store, SPECIAL_USERS)
    used = {u.username for u in store.users.values()}
    while len(store.users) < count:
        first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
        username = f"{first}.{last}".lower()
        if username in used:
            username = f"{username}{len(store.users)}"
        used.add(username)
        roll = rng.random()
        state = ("blocked" if roll < 0.02 else "deactivated" if roll < 0.03 else
                 "blocked_pending_approval" if roll < 0.035 else "banned" if roll < 0.04 else "active")
        idle = rng.choice((0, 1, 3, 10, 40, 120, 365)) if state == "active" else rng.randint(100, 700)
        _add_user(store, username, f"{first} {last}", state,
                  anchor - timedelta(days=rng.randint(idle + 1, idle + 2000)),
                  anchor - timedelta(days=idle, minutes=rng.randint(0, 1440)),
                  external=rng.random() < 0.03)
    root, alice = store.user_by_username("root"), store.user_by_username("alice")
    assert root is not None and alice is not None
    store.tokens[ROOT_TOKEN] = Token(ROOT_TOKEN, root.id, scopes=("api", "read_user", "sudo", "admin_mode"),
                                     name="sandbox root")
    store.tokens[ALICE_TOKEN] = Token(ALICE_TOKEN, alice.id, scopes=("api", "read_user"),
                                      name="sandbox alice")
    store.tokens[NOSUDO_TOKEN] = Token(NOSUDO_TOKEN, root.id, scopes=("api", "read_user"),
                                       name="sandbox root without sudo")


def add_job_token(store: Store, project_id: int) -> None:
    """The CI job token: acts as alice (who triggered the pipeline), for one project."""
    alice = store.user_by_username("alice")
    assert alice is not None
    store.tokens[JOB_TOKEN] = Token(JOB_TOKEN, alice.id, kind="job", scopes=("api",), project_id=project_id,
                                    name="sandbox job")
