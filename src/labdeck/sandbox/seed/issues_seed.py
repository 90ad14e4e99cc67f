"""What the issues area seeds (records in `issues.py`): every scale the same handcrafted issues in the core
projects (tests rely on them, see `FIXED`), with labels and milestones; `demo` adds a few hundred generated
issues spread over the generated projects, and `large` adds `LARGE_ISSUES` more, built from a compact loop
(about a second for 50,000) when the area is first used.
"""

from __future__ import annotations

import random
from datetime import timedelta
from typing import TYPE_CHECKING

from labdeck.sandbox.seed.issues import (
    LARGE_ISSUES,
    Issue,
    IssuesData,
    Label,
    MergeRequest,
    Milestone,
    add_issue,
    add_note,
    issues_data,
)
from labdeck.sandbox.store import Project, Store

if TYPE_CHECKING:
    from labdeck.sandbox.seed import SeedContext

DEMO_ISSUES = 600

# name, colour, description, priority (lower first; None for unprioritised)
LABELS: tuple[tuple[str, str, str, int | None], ...] = (
    ("bug", "#d9534f", "Something is broken", 2),
    ("feature", "#428bca", "New functionality", None),
    ("documentation", "#5cb85c", "Docs and guides", None),
    ("security", "#ad4363", "Security relevant", 0),
    ("performance", "#f0ad4e", "Speed and resource use", None),
    ("priority::high", "#ff0000", "Fix first", 1),
    ("priority::low", "#8fbc8f", "When there is time", 5),
    ("backend", "#34495e", "Server side", None),
    ("frontend", "#9b59b6", "Client side", None),
    ("ux", "#e6e6fa", "User experience", None),
    ("good first issue", "#7fffd4", "Good for newcomers", None),
    ("wontfix", "#7f8c8d", "Will not be fixed", None),
)

_MILESTONES = (("v1.0", "closed", -60), ("v2.0", "active", 30), ("Backlog", "active", None))
_USERS = {"root": 1, "alice": 2, "bob": 3, "carol": 4, "dave": 5, "erin": 6, "frank": 7}

# project, title, author, assignees, labels, milestone, state, extra fields; `created`/`updated` are days
# ago, `due` is days from today, `closed_by` a username.
FIXED: tuple[tuple[str, str, str, tuple[str, ...], tuple[str, ...], str | None, str, dict[str, object]],
             ...] = (
    ("acme/platform/api-gateway", "Gateway returns 502 under load", "alice", ("bob",),
     ("bug", "priority::high", "backend"), "v2.0", "opened",
     {"description": "Seen on **prod** after the deploy.\n\nRunbook: https://example.com/runbook",
      "created": 40, "updated": 1, "due": 3, "reactions": [("alice", "thumbsup"), ("bob", "thumbsup")],
      "time_estimate": 12600, "total_time_spent": 3600, "weight": 3}),
    ("acme/platform/api-gateway", "Add rate limit headers", "bob", ("alice",), ("feature", "backend"), "v2.0",
     "opened", {"created": 30, "updated": 5, "due": 20, "reactions": [("carol", "rocket")], "weight": 2}),
    ("acme/platform/api-gateway", "Leaked token in debug logs", "carol", ("carol",), ("security", "bug"),
     None, "opened", {"created": 20, "updated": 2, "due": -2, "confidential": True}),
    ("acme/platform/api-gateway", "Outage on the edge cluster", "root", ("bob", "alice"),
     ("priority::high",), "v1.0", "closed",
     {"created": 60, "updated": 50, "issue_type": "incident", "closed_by": "carol"}),
    ("acme/platform/api-gateway", "Document the retry policy", "alice", (), ("documentation",), None,
     "opened",
     {"created": 10, "updated": 10, "description": "Explain backoff and `Retry-After`."}),
    ("acme/platform/web-portal", "Dark mode", "dave", (), (), None, "opened", {"created": 15, "updated": 15}),
    ("acme/platform/web-portal", "Login button misaligned", "alice", ("erin",), ("bug", "frontend", "ux"),
     "v2.0", "closed", {"created": 90, "updated": 80, "closed_by": "alice", "due": -70}),
    ("acme/platform/web-portal", "Checkout flow end to end", "bob", (), ("frontend",), None, "opened",
     {"created": 25, "updated": 25, "issue_type": "test_case"}),
    ("acme/infra/terraform", "Upgrade the provider to 5.x", "frank", ("frank",), ("performance",), "Backlog",
     "opened", {"created": 12, "updated": 3, "due": 10}),
    ("acme/security/vault", "Rotate the root key", "carol", ("carol",), ("security",), None, "opened",
     {"created": 8, "updated": 8, "confidential": True}),
    ("acme/handbook", "Fix typo in onboarding", "erin", (), ("documentation", "good first issue"), None,
     "closed", {"created": 100, "updated": 95, "closed_by": "erin"}),
    ("acme/legacy-app", "Migrate off the legacy app", "alice", (), ("feature",), None, "opened",
     {"created": 300, "updated": 200}),
    ("opensource/labdeck", "Support keyset pagination", "alice", ("alice",), ("feature",), "v1.0", "opened",
     {"created": 5, "updated": 4, "reactions": [("bob", "thumbsup"), ("alice", "rocket")], "weight": 5}),
    ("hidden-lab/secrets", "Secret plans", "bob", ("carol",), ("security",), None, "opened",
     {"created": 3, "updated": 3}),
    ("alice/dotfiles", "Sync vim config", "alice", ("alice",), (), None, "opened",
     {"created": 2, "updated": 2}),
    ("root/sandbox-notes", "Welcome to the sandbox", "root", (), ("documentation",), None, "opened",
     {"created": 400, "updated": 400}),
)

_VERBS = ("Fix", "Add", "Remove", "Improve", "Investigate", "Document", "Refactor", "Speed up", "Test",
          "Upgrade")
_NOUNS = ("login flow", "cache layer", "export job", "search index", "rate limiter", "settings page",
          "webhook retries", "audit log", "API pagination", "dark theme", "CI pipeline", "backup script",
          "error pages", "metrics endpoint", "deploy script", "token rotation")


def _seed_labels_and_milestones(store: Store, data: IssuesData, projects: list[Project]) -> None:
    for name, color, description, priority in LABELS:
        data.labels[name] = Label(store.next_id("label"), name, color, description, priority)
    for project in projects:
        for iid, (title, state, due) in enumerate(_MILESTONES, start=1):
            milestone = Milestone(store.next_id("milestone"), iid, project.id, title, state,
                                  project.created_at + timedelta(days=1),
                                  None if due is None else (store.anchor + timedelta(days=due)).date(),
                                  f"Milestone {title} of {project.name}")
            data.milestones[milestone.id] = milestone


def _seed_fixed(store: Store, data: IssuesData) -> None:
    anchor = store.anchor
    for path, title, author, assignees, labels, milestone, state, extra in FIXED:
        project = store.project_by_path(path)
        assert project is not None, path
        extra = dict(extra)
        created = anchor - timedelta(days=int(extra.pop("created")), hours=len(data.issues))  # type: ignore[call-overload]
        due = extra.pop("due", None)
        closed_by = extra.pop("closed_by", None)
        reactions = [(_USERS[u], e) for u, e in extra.pop("reactions", [])]  # type: ignore[attr-defined]
        updated = anchor - timedelta(days=int(extra.pop("updated")))  # type: ignore[call-overload]
        ms = data.milestone_by_title(project.id, milestone) if milestone else None
        issue = add_issue(store, project, title, _USERS[author], created=created, labels=list(labels),
                          assignee_ids=[_USERS[u] for u in assignees], milestone_id=ms.id if ms else None,
                          state=state, reactions=reactions,
                          due_date=None if due is None else (anchor + timedelta(days=int(due))).date(),  # type: ignore[call-overload]
                          **extra)
        issue.updated_at = updated
        if state == "closed":
            issue.closed_at = updated
            issue.closed_by_id = _USERS[str(closed_by)] if closed_by else None
    first = data.by_iid(store.project_by_path("acme/platform/api-gateway").id, 1)  # type: ignore[union-attr]
    assert first is not None
    add_note(store, first, _USERS["bob"], "assigned to @bob", system=True, created=first.created_at)
    add_note(store, first, _USERS["bob"], "Looking into it: the upstream pool is exhausted.",
             created=first.created_at + timedelta(days=1))
    add_note(store, first, _USERS["alice"], "Thanks! Graphs: https://example.com/graphs",
             created=first.created_at + timedelta(days=2))
    gateway = first.project_id
    for iid, (title, state, branch, related, closes) in enumerate((
            ("Fix 502 under load", "opened", "fix-502", [first.id], [first.id]),
            ("Add a load test", "merged", "load-test", [first.id], []),
    ), start=1):
        mr = MergeRequest(store.next_id("merge_request"), iid, gateway, title, state, _USERS["bob"], branch,
                          first.created_at + timedelta(days=iid), related, closes)
        data.merge_requests[mr.id] = mr


def _seed_generated(store: Store, data: IssuesData, rng: random.Random, projects: list[Project],
                    count: int) -> None:
    """`count` issues spread over `projects`, built with as little work per issue as possible."""
    if not projects or count <= 0:
        return
    people = [u.id for u in store.users.values() if u.state == "active" and not u.bot][:400]
    label_names = [name for name, *_ in LABELS]
    anchor = store.anchor
    randrange, random_, choice = rng.randrange, rng.random, rng.choice
    milestones: dict[int, list[int]] = {}
    for milestone in data.milestones.values():
        milestones.setdefault(milestone.project_id, []).append(milestone.id)
    next_issue = store._ids.get("issue", 0)
    issues, by_iid, counters = data.issues, data._by_project_iid, data.iid_counters
    for index in range(count):
        project = projects[index % len(projects)] if index < len(projects) else choice(projects)
        pid = project.id
        iid = counters.get(pid, 0) + 1
        counters[pid] = iid
        next_issue += 1
        age = randrange(1, 900)
        created = anchor - timedelta(days=age, minutes=randrange(0, 1440))
        roll = random_()
        closed = roll < 0.35
        updated = created + timedelta(days=randrange(0, age + 1))
        ms_ids = milestones.get(pid)
        issue = Issue(
            next_issue, iid, pid, f"{choice(_VERBS)} {choice(_NOUNS)}",
            f"Reported by the team in {project.name}.", choice(people), created, updated,
            state="closed" if closed else "opened", closed_at=updated if closed else None,
            closed_by_id=choice(people) if closed else None,
            labels=rng.sample(label_names, randrange(0, 4)),
            assignee_ids=[choice(people)] if roll > 0.2 else [],
            milestone_id=choice(ms_ids) if ms_ids and roll > 0.5 else None,
            issue_type="incident" if roll > 0.96 else "issue", confidential=roll > 0.93,
            due_date=(anchor + timedelta(days=randrange(-60, 90))).date() if roll < 0.5 else None,
            weight=randrange(0, 8) if roll > 0.6 else None, relative_position=next_issue * 513,
            time_estimate=3600 * randrange(0, 16) if roll > 0.7 else 0,
        )
        issues[next_issue] = issue
        by_iid[(pid, iid)] = next_issue
    store._ids["issue"] = next_issue


_NOTE_BODIES = ("I can reproduce this on `main`.", "Is this still happening after the last deploy?",
                "Assigning to myself.", "See the logs: https://example.com/logs", "Blocked by the upgrade.",
                "Fixed in the next release, please verify.")


def _seed_notes(store: Store, data: IssuesData, rng: random.Random) -> None:
    """A short discussion on some generated issues (the demo scale)."""
    people = [u.id for u in store.users.values() if u.state == "active" and not u.bot][:60]
    for issue in list(data.issues.values())[len(FIXED):]:
        for index in range(rng.choice((0, 0, 1, 2, 3))):
            add_note(store, issue, rng.choice(people), rng.choice(_NOTE_BODIES),
                     created=issue.created_at + timedelta(hours=6 * (index + 1)))


def seed(store: Store, ctx: SeedContext) -> None:
    """Labels, milestones and issues for the scale (see the module docstring)."""
    data = issues_data(store)
    core = [p for path in {f[0] for f in FIXED} if (p := store.project_by_path(path)) is not None]
    core.sort(key=lambda p: p.id)
    core_ids = {p.id for p in core}
    generated = [p for p in store.projects.values() if p.id not in core_ids]
    extra = {"tiny": 0, "demo": len(generated), "large": 2_000}.get(ctx.scale, 0)
    milestone_projects = core + generated[:extra]  # tiny: only the projects with handcrafted issues
    _seed_labels_and_milestones(store, data, milestone_projects)
    _seed_fixed(store, data)
    active = [p for p in core + generated if not p.archived]  # every generated issue is listed by default
    if ctx.scale == "demo":
        _seed_generated(store, data, ctx.rng, active, DEMO_ISSUES)
        _seed_notes(store, data, ctx.rng)
    elif ctx.scale == "large":  # 50,000 issues: built when the area is first used, not at start-up
        data.pending = lambda: _seed_generated(store, data, ctx.rng, active, LARGE_ISSUES)
