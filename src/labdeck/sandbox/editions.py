"""Which GitLab the sandbox plays: its edition (`ce` or `ee`) and version (`--edition`, `--gitlab-version`).

One place decides what exists, so routes never hard-code it:

- `route_available(path, options)`: a route that lives in GitLab's `ee/lib` is not mounted on Community
  Edition, and a route introduced after the version played is not mounted either; both then answer as
  GitLab's catch-all route does (404 `{"error":"404 Not Found"}`).
- `has_feature(options, name)`: Premium behaviour inside a route that CE also serves (issue weight and health
  status, the `/promote` quick action, `environment_scope` on group variables). CE ignores such parameters
  and leaves the fields out of its answers.
- `version_body(options, metadata=...)`: what `GET /version` and `GET /metadata` answer for that version.

The table of versions holds only what GitLab's docs or source state ("Introduced in GitLab X.Y"); an endpoint
not listed is taken to exist in every version the sandbox plays.
"""

from __future__ import annotations

import hashlib
from typing import Any, Final

from labdeck.sandbox.options import SandboxOptions

# Route families served from ee/lib (ee/lib/ee/api/api.rb mounts Iterations and ProtectedEnvironments;
# ee/lib/ee/api/members.rb serves billable members and the LDAP override).
EE_ONLY_ROUTES: Final[tuple[str, ...]] = (
    "/groups/{id}/billable_members",
    "/groups/{id}/members/{user_id}/override",
    "/groups/{id}/iterations",
    "/projects/{id}/iterations",
    "/projects/{id}/protected_environments",
)

# Route family -> the GitLab version that introduced it (doc/api "Introduced in GitLab X.Y" notes and the
# `detail 'This feature was introduced in GitLab X.Y'` of lib/api).
INTRODUCED: Final[dict[str, tuple[int, int]]] = {
    "/metadata": (15, 2),                         # doc/api/metadata.md
    "/job": (13, 10),                             # doc/api/jobs.md, "Get job token's job"
    "/groups/{id}/iterations": (13, 5),           # doc/api/group_iterations.md
    "/projects/{id}/iterations": (13, 5),         # doc/api/iterations.md
    "/groups/{id}/export_relations": (13, 12),    # doc/api/group_relations_export.md
    "/groups/{id}/export": (12, 5),               # lib/api/group_export.rb
}

# Premium features inside routes CE serves too.
EE_FEATURES: Final[frozenset[str]] = frozenset({
    "issue_weight", "issue_health_status", "promote_to_epic", "group_variable_environment_scope"})
# Fields of an issue that only EE's entity exposes.
EE_ISSUE_FIELDS: Final[tuple[str, ...]] = ("weight", "blocking_issues_count", "health_status", "iteration",
                                           "epic_iid", "epic")


def _in_family(path: str, family: str) -> bool:
    return path == family or path.startswith(family + "/")


def introduced_in(path: str) -> tuple[int, int] | None:
    """The version that introduced the route family of `path` (a route template), None when not listed."""
    found = [version for family, version in INTRODUCED.items() if _in_family(path, family)]
    return max(found) if found else None


def ee_only(path: str) -> bool:
    return any(_in_family(path, family) for family in EE_ONLY_ROUTES)


def route_available(path: str, options: SandboxOptions) -> bool:
    """Whether GitLab of this edition and version mounts the route `path` (a template like
    `/groups/{id}/iterations`)."""
    if options.edition == "ce" and ee_only(path):
        return False
    since = introduced_in(path)
    return since is None or options.version_tuple[:2] >= since


def has_feature(options: SandboxOptions, name: str) -> bool:
    """Whether a Premium behaviour inside a shared route is on (always, on EE: the sandbox plays a licensed
    Ultimate instance)."""
    return name not in EE_FEATURES or options.edition == "ee"


def version_string(options: SandboxOptions) -> str:
    """`16.11.0-ee` on Enterprise Edition, `16.11.0` on Community Edition."""
    major, minor, patch = options.version_tuple
    return f"{major}.{minor}.{patch}" + ("-ee" if options.edition == "ee" else "")


def revision(options: SandboxOptions) -> str:
    """A stable 11-character revision per version and edition (GitLab's short SHA)."""
    return hashlib.sha1(version_string(options).encode()).hexdigest()[:11]


def version_body(options: SandboxOptions, *, metadata: bool) -> dict[str, Any]:
    """`GET /metadata` (`metadata=True`) or `GET /version` as the version played answers them: before 15.5
    `/version` gives only version and revision; from 15.5 it answers the metadata query; `enterprise` came
    in 15.6 and `kas.externalK8sProxyUrl` in 17.6 (doc/api/metadata.md, lib/api/metadata.rb)."""
    at = options.version_tuple[:2]
    body: dict[str, Any] = {"version": version_string(options), "revision": revision(options)}
    if not metadata and at < (15, 5):
        return body
    kas: dict[str, Any] = {"enabled": False, "externalUrl": None}
    if at >= (17, 6):
        kas["externalK8sProxyUrl"] = None
    kas["version"] = None
    body["kas"] = kas
    if at >= (15, 6):
        body["enterprise"] = options.edition == "ee"
    return body
