"""Shared test data for the registry conformance tests: a repository with known tags in a known project."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from starlette.applications import Starlette

from labdeck.sandbox.seed.registry import Repository, Tag, add_repository
from labdeck.sandbox.store import Store

ROOT = {"PRIVATE-TOKEN": "glpat-sandbox-root"}
ALICE = {"PRIVATE-TOKEN": "glpat-sandbox-alice"}
JOB = {"JOB-TOKEN": "glcbt-sandbox-job"}
GATEWAY = "acme/platform/api-gateway"
API = "/api/v4"


def store_of(app: Starlette) -> Store:
    return app.state.store  # type: ignore[no-any-return]


def now_of(app: Starlette) -> datetime:
    return store_of(app).now()


def known_tags(now: datetime) -> list[Tag]:
    """latest and v1.1.0 share a digest; ages 1, 10, 40, 100 and 200 days; one tag without a time."""
    def tag(name: str, days: float | None, digest: str, size: int) -> Tag:
        created = None if days is None else (now - timedelta(days=days)).replace(microsecond=0)
        return Tag(name, created, f"sha256:{digest * 64}", (digest * 64)[:64], size)

    return [
        tag("latest", 1, "a", 100), tag("v1.1.0", 1, "a", 100), tag("v1.0.0", 40, "b", 200),
        tag("main-abc1234", 10, "c", 300), tag("pr-12", 100, "d", 400), tag("pr-13", 200, "e", 500),
        tag("buildcache", None, "f", 600),
    ]


def add_known_repository(app: Starlette, name: str = "known") -> Repository:
    store = store_of(app)
    project = store.project_by_path(GATEWAY)
    assert project is not None
    return add_repository(store, project, name, known_tags(store.now()),
                          datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC))


def tags_path(repo: Repository) -> str:
    return f"{API}/projects/{repo.project_id}/registry/repositories/{repo.id}/tags"
