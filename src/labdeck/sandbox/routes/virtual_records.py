"""The scale sandbox's records: each virtual issue, user and project is
built from its index `k` alone, and everything a filter or an order looks at (titles, states, labels,
names, authors) from its residue `k % PERIOD` (`sandbox/virtual.py`), deterministic for the seed. The JSON
shapes carry the fields of GitLab's listings that labdeck and common clients read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from labdeck.domain.digits import parse_digits
from labdeck.sandbox.options import SandboxOptions
from labdeck.sandbox.virtual import PERIOD, mix

EPOCH = datetime(2015, 1, 1, tzinfo=UTC)
_VERBS = ("Fix", "Add", "Remove", "Refactor", "Document", "Speed up", "Test", "Rename", "Clean up", "Port",
          "Audit", "Retry", "Cache", "Split", "Merge", "Deprecate")
_ADJS = ("flaky", "slow", "broken", "legacy", "missing", "nested", "remote", "shared", "stale", "unsafe",
         "verbose", "cached", "async", "empty", "global", "hidden")
_NOUNS = ("parser", "pipeline", "runner", "registry", "login", "webhook", "exporter", "scheduler", "mirror",
          "backup", "sidebar", "search", "cache", "importer", "dashboard", "token")
LABELS = (("bug", "#d9534f"), ("feature", "#428bca"), ("security", "#8e44ad"), ("docs", "#5cb85c"),
           ("performance", "#f0ad4e"), ("ux", "#69d100"), ("backend", "#330066"), ("frontend", "#009966"))
_FIRST = ("Ada", "Ben", "Cleo", "Dev", "Eva", "Finn", "Gus", "Hana", "Ivo", "Jade", "Kai", "Lena", "Milo",
          "Nora", "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tara", "Umar", "Vera", "Wes", "Xena", "Yuri",
          "Zoe", "Alba", "Bram", "Cora", "Dara", "Emil", "Faye")
_LAST = ("Abbott", "Baker", "Chen", "Diaz", "Evans", "Fischer", "Garcia", "Hughes", "Ito", "Jensen", "Khan",
         "Lopez", "Meyer", "Novak", "Okafor", "Park", "Quist", "Rossi", "Silva", "Tanaka", "Ueda", "Vogel",
         "Weber", "Xu", "Young", "Zhang", "Amari", "Brandt", "Costa", "Dubois", "Eklund", "Frei")
AUTHORS = 512  # issues are written by the first 512 virtual users

_SALT = {"users": 1, "issues": 2, "projects": 3}


def _h(options: SandboxOptions, kind: str, r: int) -> int:
    return mix(options.seed * 8 + _SALT[kind], r)


def _at(k: int) -> datetime:
    return EPOCH + timedelta(minutes=k)


def _iso(value: datetime) -> str:
    return value.replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


@lru_cache(maxsize=PERIOD * 2)
def user_parts(options: SandboxOptions, r: int) -> tuple[str, str, str]:
    """(name, username prefix, state) of residue `r`."""
    h = _h(options, "users", r)
    first, last = _FIRST[h % len(_FIRST)], _LAST[(h >> 8) % len(_LAST)]
    roll = (h >> 16) % 100
    state = "blocked" if roll == 0 else "deactivated" if roll == 1 else "active"
    return f"{first} {last}", f"{first}.{last}".lower(), state


def username(options: SandboxOptions, k: int) -> str:
    return f"{user_parts(options, k % PERIOD)[1]}.{k + 1:07d}"


def user_index(options: SandboxOptions, name: str) -> int | None:
    """The index of the virtual user with this username, None when there is none."""
    prefix, _, number = name.lower().rpartition(".")
    index = parse_digits(number)
    if index is None or not prefix:
        return None
    k = index - 1
    if not 0 <= k < options.virtual_users or user_parts(options, k % PERIOD)[1] != prefix:
        return None
    return k


def user_json(options: SandboxOptions, k: int, base: str, *, admin: bool) -> dict[str, Any]:
    name, _, state = user_parts(options, k % PERIOD)
    login = username(options, k)
    body: dict[str, Any] = {
        "id": k + 1, "username": login, "name": name, "state": state, "locked": False,
        "avatar_url": f"{base}/uploads/-/system/user/avatar/{k + 1}/avatar.png", "web_url": f"{base}/{login}"}
    if admin:
        created = _iso(_at(k))
        body.update({"created_at": created, "bio": "", "location": "", "public_email": None,
                     "organization": "", "job_title": "", "bot": False, "is_admin": False,
                     "email": f"{login}@example.com", "last_sign_in_at": created, "confirmed_at": created,
                     "last_activity_on": _at(k + 525_600).date().isoformat(), "identities": [],
                     "two_factor_enabled": bool(k % 3), "external": False, "user_type": "human",
                     "using_license_seat": state == "active", "note": None})
    return body


@lru_cache(maxsize=PERIOD * 2)
def issue_parts(options: SandboxOptions, r: int) -> tuple[str, str, tuple[int, ...], int, int | None]:
    """(title, state, label indexes, author index, assignee index or None) of residue `r`."""
    h = _h(options, "issues", r)
    title = f"{_VERBS[h % 16]} {_ADJS[(h >> 4) % 16]} {_NOUNS[(h >> 8) % 16]}"
    state = "closed" if (h >> 12) % 4 == 0 else "opened"
    labels = tuple(j for j in range(len(LABELS)) if (h >> (16 + 3 * j)) & 7 == 0)
    author = (h >> 40) % AUTHORS
    assignee = None if (h >> 50) % 3 == 0 else (h >> 52) % AUTHORS
    return title, state, labels, author, assignee


def _label_json(j: int, details: bool) -> Any:
    name, colour = LABELS[j]
    if not details:
        return name
    return {"id": j + 1, "name": name, "color": colour, "description": f"{name} issues",
            "description_html": f"<p>{name} issues</p>", "text_color": "#FFFFFF"}


def issue_json(options: SandboxOptions, k: int, base: str, *, details: bool) -> dict[str, Any]:
    title, state, labels, author, assignee = issue_parts(options, k % PERIOD)
    project_id, iid = k % 1000 + 1, k // 1000 + 1
    path = f"scale/project-{project_id}"
    created = _at(k)
    author_json = user_json(options, author, base, admin=False)
    assignees = [] if assignee is None else [user_json(options, assignee, base, admin=False)]
    api = f"{base}/api/v4/projects/{project_id}/issues/{iid}"
    return {
        "id": k + 1, "iid": iid, "project_id": project_id, "title": title,
        "description": f"A {title.lower()} issue of the scale sandbox.", "state": state,
        "created_at": _iso(created), "updated_at": _iso(created + timedelta(seconds=30)),
        "closed_at": _iso(created + timedelta(hours=1)) if state == "closed" else None,
        "closed_by": author_json if state == "closed" else None,
        "labels": [_label_json(j, details) for j in labels], "milestone": None, "assignees": assignees,
        "assignee": assignees[0] if assignees else None, "author": author_json, "type": "ISSUE",
        "user_notes_count": 0, "merge_requests_count": 0, "upvotes": k % 7, "downvotes": 0, "due_date": None,
        "confidential": False, "discussion_locked": None, "issue_type": "issue",
        "web_url": f"{base}/{path}/-/issues/{iid}",
        "time_stats": {"time_estimate": 0, "total_time_spent": 0, "human_time_estimate": None,
                       "human_total_time_spent": None},
        "task_completion_status": {"count": 0, "completed_count": 0}, "has_tasks": False,
        "weight": None, "_links": {"self": api, "notes": f"{api}/notes", "project": f"{base}/api/v4/projects/"
                                                                                   f"{project_id}"},
        "references": {"short": f"#{iid}", "relative": f"{path}#{iid}", "full": f"{path}#{iid}"},
        "reference": f"#{iid}", "severity": "UNKNOWN", "moved_to_id": None,
    }


@lru_cache(maxsize=PERIOD * 2)
def project_parts(options: SandboxOptions, r: int) -> tuple[str, str, str, bool]:
    """(name, path prefix, visibility, archived) of residue `r`."""
    h = _h(options, "projects", r)
    adj, noun = _ADJS[h % 16], _NOUNS[(h >> 4) % 16]
    visibility = ("public", "internal", "private")[(h >> 8) % 3]
    return f"{adj.title()} {noun}", f"{adj}-{noun}", visibility, (h >> 12) % 20 == 0


def project_json(options: SandboxOptions, k: int, base: str) -> dict[str, Any]:
    name, prefix, visibility, archived = project_parts(options, k % PERIOD)
    path = f"{prefix}-{k + 1}"
    full = f"scale/{path}"
    created = _iso(_at(k))
    return {
        "id": k + 1, "description": f"{name}, a project of the scale sandbox", "name": f"{name} {k + 1}",
        "name_with_namespace": f"Scale / {name} {k + 1}", "path": path, "path_with_namespace": full,
        "created_at": created, "default_branch": "main", "tag_list": [], "topics": [],
        "ssh_url_to_repo": f"git@sandbox:{full}.git", "http_url_to_repo": f"{base}/{full}.git",
        "web_url": f"{base}/{full}", "readme_url": None, "forks_count": 0, "avatar_url": None,
        "star_count": k % 11, "last_activity_at": created, "visibility": visibility, "archived": archived,
        "namespace": {"id": 1_000_000, "name": "Scale", "path": "scale", "kind": "group",
                      "full_path": "scale", "parent_id": None, "avatar_url": None,
                      "web_url": f"{base}/groups/scale"},
        "empty_repo": False, "open_issues_count": k % 5, "updated_at": created,
    }
