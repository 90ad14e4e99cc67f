"""Seed groups, subgroups, projects and memberships.

Every scale starts with the same fixed core (tests rely on it):

- `acme` (public): carol 50, frank 40, alice 30, bob 20, dave 15, erin 10, external.user 10; subgroups
  `acme/platform` (public), `acme/infra` (internal), `acme/security` (private); projects
  `acme/platform/api-gateway` (public, the job token's project), `acme/platform/web-portal` (public),
  `acme/infra/terraform` (internal), `acme/security/vault` (private), `acme/handbook` (public),
  `acme/legacy-app` (public, archived).
- `opensource` (public): alice 50, bob 30; `opensource/labdeck` (public), `opensource/tools` (internal).
- `hidden-lab` (private, alice is not a member): bob 50, carol 40, dave 10; `hidden-lab/secrets`,
  `hidden-lab/experiments` (private; erin 20 and frank 15 are direct project members).
- personal projects `alice/dotfiles` (private) and `root/sandbox-notes` (public).

Then the scale adds generated organisations with subgroups and projects.
"""

from __future__ import annotations

import random
from datetime import timedelta

from labdeck.sandbox.seed.names import GROUP_WORDS, ORG_WORDS, PROJECT_HEADS, PROJECT_TAILS, TOPICS
from labdeck.sandbox.store import Group, Member, Project, Store, Visibility

_RANK: dict[str, int] = {"private": 0, "internal": 1, "public": 2}
LEVELS = (10, 15, 20, 30, 40, 50)


def _cap(visibility: str, parent: str) -> Visibility:
    return visibility if _RANK[visibility] <= _RANK[parent] else parent  # type: ignore[return-value]


def add_group(store: Store, name: str, path: str, visibility: str, parent: Group | None = None,
              description: str = "", age_days: int = 500) -> Group:
    group = Group(id=store.next_id("namespace"), name=name, path=path,
                  full_path=f"{parent.full_path}/{path}" if parent else path,
                  full_name=f"{parent.full_name} / {name}" if parent else name,
                  parent_id=parent.id if parent else None,
                  visibility=_cap(visibility, parent.visibility) if parent else visibility,  # type: ignore[arg-type]
                  description=description, created_at=store.anchor - timedelta(days=age_days))
    store.groups[group.id] = group
    return group


def add_member(store: Store, table: dict[int, dict[int, Member]], target: int, username: str,
               level: int) -> None:
    user = store.user_by_username(username)
    assert user is not None, username
    table.setdefault(target, {})[user.id] = Member(user.id, level, store.anchor - timedelta(days=300))


def add_project(store: Store, name: str, path: str, visibility: str, *, group: Group | None = None,
                owner_username: str | None = None, archived: bool = False, description: str = "",
                age_days: int = 400, idle_days: int = 2, topics: list[str] | None = None,
                creator_id: int = 1, stars: int = 0) -> Project:
    if group is not None:
        ns_id, kind, ns_path, ns_name = group.id, "group", group.full_path, group.full_name
        visibility = _cap(visibility, group.visibility)
    else:
        owner = store.user_by_username(owner_username or "root")
        assert owner is not None
        ns_id, kind, ns_path, ns_name = owner.namespace_id, "user", owner.username, owner.name
        creator_id = owner.id
    created = store.anchor - timedelta(days=age_days)
    project = Project(id=store.next_id("project"), name=name, path=path, namespace_id=ns_id,
                      namespace_kind=kind,  # type: ignore[arg-type]
                      path_with_namespace=f"{ns_path}/{path}", name_with_namespace=f"{ns_name} / {name}",
                      visibility=visibility, creator_id=creator_id, description=description,  # type: ignore[arg-type]
                      archived=archived, created_at=created,
                      last_activity_at=store.anchor - timedelta(days=idle_days),
                      updated_at=store.anchor - timedelta(days=idle_days), topics=topics or [],
                      star_count=stars)
    store.projects[project.id] = project
    return project


def seed_core(store: Store) -> None:
    """The fixed groups and projects described in the module docstring."""
    gm, pm = store.group_members, store.project_members
    acme = add_group(store, "Acme", "acme", "public", description="Acme Corporation", age_days=800)
    for username, level in (("carol", 50), ("frank", 40), ("alice", 30), ("bob", 20), ("dave", 15),
                            ("erin", 10), ("external.user", 10)):
        add_member(store, gm, acme.id, username, level)
    platform = add_group(store, "Platform", "platform", "public", acme, "Shared platform services")
    infra = add_group(store, "Infra", "infra", "internal", acme, "Infrastructure as code")
    security = add_group(store, "Security", "security", "private", acme, "Security tooling")
    add_project(store, "API Gateway", "api-gateway", "public", group=platform, topics=["go", "grpc"],
                description="Edge gateway for every public API", stars=42)
    add_project(store, "Web Portal", "web-portal", "public", group=platform, topics=["typescript", "react"])
    add_project(store, "Terraform", "terraform", "internal", group=infra, topics=["terraform"])
    add_project(store, "Vault", "vault", "private", group=security, description="Secrets management")
    add_project(store, "Handbook", "handbook", "public", group=acme, description="How we work")
    add_project(store, "Legacy App", "legacy-app", "public", group=acme, archived=True, idle_days=700)
    opensource = add_group(store, "Open Source", "opensource", "public", age_days=700)
    add_member(store, gm, opensource.id, "alice", 50)
    add_member(store, gm, opensource.id, "bob", 30)
    add_project(store, "labdeck", "labdeck", "public", group=opensource, topics=["python"], stars=7)
    add_project(store, "Tools", "tools", "internal", group=opensource)
    hidden = add_group(store, "Hidden Lab", "hidden-lab", "private", description="Not for everyone")
    for username, level in (("bob", 50), ("carol", 40), ("dave", 10)):
        add_member(store, gm, hidden.id, username, level)
    add_project(store, "Secrets", "secrets", "private", group=hidden)
    experiments = add_project(store, "Experiments", "experiments", "private", group=hidden)
    add_member(store, pm, experiments.id, "erin", 20)
    add_member(store, pm, experiments.id, "frank", 15)
    add_project(store, "dotfiles", "dotfiles", "private", owner_username="alice")
    add_project(store, "Sandbox Notes", "sandbox-notes", "public", owner_username="root")


def seed_generated(store: Store, rng: random.Random, orgs: int, subgroups: int, projects: int) -> None:
    """`orgs` top-level groups with about `subgroups` subgroups each, `projects` projects spread over them,
    and members at every access level in each organisation."""
    people = [u.username for u in store.users.values() if u.state == "active" and not u.bot and u.id > 7]
    all_groups: list[Group] = []
    visibilities = ("public", "public", "internal", "private")
    for index in range(orgs):
        word = ORG_WORDS[index % len(ORG_WORDS)]
        path = word if index < len(ORG_WORDS) else f"{word}-{index // len(ORG_WORDS)}"
        org = add_group(store, path.replace("-", " ").title(), path, rng.choice(visibilities),
                        age_days=rng.randint(100, 1500))
        all_groups.append(org)
        for level, username in zip(LEVELS, rng.sample(people, min(len(people), len(LEVELS))), strict=False):
            add_member(store, store.group_members, org.id, username, level)
        for sub_word in rng.sample(GROUP_WORDS, min(subgroups, len(GROUP_WORDS))):
            sub = add_group(store, sub_word.replace("-", " ").title(), sub_word, rng.choice(visibilities),
                            org, age_days=rng.randint(50, 1000))
            all_groups.append(sub)
            if rng.random() < 0.3:
                add_member(store, store.group_members, sub.id, rng.choice(people), rng.choice(LEVELS))
    taken: set[str] = set()
    for index in range(projects):
        group = all_groups[index % len(all_groups)] if index < len(all_groups) else rng.choice(all_groups)
        head, tail = rng.choice(PROJECT_HEADS), rng.choice(PROJECT_TAILS)
        path = f"{head}-{tail}"
        if f"{group.full_path}/{path}" in taken:
            path = f"{path}-{index}"
        taken.add(f"{group.full_path}/{path}")
        visibility = rng.choice(("public", "internal", "private"))
        add_project(store, f"{head.title()} {tail.title()}", path, visibility,
                    group=group, archived=rng.random() < 0.05, age_days=rng.randint(10, 1500),
                    idle_days=rng.randint(0, 400), topics=rng.sample(TOPICS, rng.randint(0, 3)),
                    description=f"{head.title()} {tail} for {group.full_name}",
                    creator_id=1, stars=rng.randint(0, 60))
