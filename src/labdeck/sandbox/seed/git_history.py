"""A small commit history per project, so repository tags point at real commits.

Every project gets, on first use, a linear history of a few commits on its default branch (plus a
`develop` branch one commit ahead and a `feature/health-endpoint` branch merged into it) and a few release
tags, all derived from the project id alone: nothing is built at start, so the `large` scale costs nothing
here, and the same project always has the same history. Records live in `store.areas["repository_tags"]`
(`RepoData`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from labdeck.sandbox.store import Project, Store

AREA = "repository_tags"
_TITLES = ("Initial commit", "Add README", "Set up CI pipeline", "Fix flaky test", "Bump dependencies",
           "Refactor configuration loading", "Add health endpoint", "Document the release process",
           "Improve error messages", "Prepare release")
_AUTHORS = (("Carol Danvers", "carol@example.com"), ("Frank Castle", "frank@example.com"),
            ("Alice Liddell", "alice@example.com"), ("Bob Builder", "bob@example.com"))


def sha(*parts: object) -> str:
    """A deterministic 40-hex object id."""
    return hashlib.sha1(":".join(str(p) for p in parts).encode()).hexdigest()


@dataclass(slots=True)
class Commit:
    """A commit of the sandbox's repositories (tags point at them, deployments ship them)."""

    id: str
    title: str
    message: str
    author_name: str
    author_email: str
    created_at: datetime
    parent_ids: list[str] = field(default_factory=list)


@dataclass(slots=True)
class RepoTag:
    name: str
    commit_id: str
    message: str | None = None  # None for a lightweight tag
    protected: bool = False
    release_description: str | None = None
    created_at: datetime | None = None  # annotated tags: when the tag object was made; lightweight: None

    @property
    def target(self) -> str:
        """The commit id (lightweight) or the tag object's id (annotated)."""
        return self.commit_id if self.message is None else sha("tag", self.name, self.commit_id, self.message)


@dataclass
class ProjectRepository:
    commits: dict[str, Commit] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)
    tags: dict[str, RepoTag] = field(default_factory=dict)

    def resolve(self, ref: str) -> Commit | None:
        """A commit by full or abbreviated (7+) id, branch name or tag name."""
        if ref in self.branches:
            return self.commits[self.branches[ref]]
        if ref in self.tags:
            return self.commits[self.tags[ref].commit_id]
        if ref in self.commits:
            return self.commits[ref]
        if len(ref) >= 7 and all(c in "0123456789abcdef" for c in ref.lower()):
            found = [c for cid, c in self.commits.items() if cid.startswith(ref.lower())]
            if len(found) == 1:
                return found[0]
        return None

    def copy(self, branches: str | None = None) -> ProjectRepository:
        """A fork's repository: every commit, the named branch only (all when empty), every tag."""
        kept = {name: cid for name, cid in self.branches.items() if not branches or name == branches}
        return ProjectRepository(dict(self.commits), kept, {n: RepoTag(t.name, t.commit_id, t.message,
                                                                       created_at=t.created_at)
                                                            for n, t in self.tags.items()})


@dataclass
class RepoData:
    """Repositories built so far, by project id (the rest are built on first use)."""

    repositories: dict[int, ProjectRepository] = field(default_factory=dict)


def repo_data(store: Store) -> RepoData:
    return store.area(AREA, RepoData)


def build_history(project: Project) -> ProjectRepository:
    """The project's deterministic history: 4 to 9 commits, `develop` one ahead, release tags."""
    repo = ProjectRepository()
    count = 4 + project.id % 6
    parent: list[str] = []
    start = project.created_at
    step = timedelta(days=max(1, (project.last_activity_at - start).days // (count + 1)) or 1)
    ids = []
    for index in range(count):
        name, email = _AUTHORS[(project.id + index) % len(_AUTHORS)]
        title = _TITLES[index % len(_TITLES)]
        cid = sha(project.id, "commit", index)
        repo.commits[cid] = Commit(cid, title, f"{title}\n", name, email, start + step * (index + 1), parent)
        parent = [cid]
        ids.append(cid)
    repo.branches[project.default_branch] = ids[-2]
    repo.branches["develop"] = ids[-1]
    repo.branches["feature/health-endpoint"] = ids[1]  # merged: an ancestor of the default branch's head
    repo.tags["v0.1.0"] = RepoTag("v0.1.0", ids[1])
    repo.tags["v0.2.0"] = RepoTag("v0.2.0", ids[2], message="Release v0.2.0", protected=True,
                                  release_description="First public release",
                                  created_at=repo.commits[ids[2]].created_at + timedelta(hours=2))
    repo.tags["v1.0.0-rc1"] = RepoTag("v1.0.0-rc1", ids[-2])
    return repo


def project_repository(store: Store, project: Project) -> ProjectRepository:
    """The project's repository, built on first use."""
    data = repo_data(store)
    repo = data.repositories.get(project.id)
    if repo is None:
        repo = data.repositories[project.id] = ProjectRepository() if project.empty_repo \
            else build_history(project)
    return repo


def seed(store: Store, ctx: object) -> None:
    """Nothing is built up front: histories appear on first use."""
    repo_data(store)
