"""Which GitLab the sandbox plays: its edition (`ce` or `ee`) and version (`--edition`, `--gitlab-version`).

One place decides what exists, so routes never hard-code it:

- `route_available(path, options, methods)`: a route that lives in GitLab's `ee/lib` is not mounted on
  Community Edition, and a route introduced after the version played is not mounted either; both then
  answer as GitLab's catch-all route does (404 `{"error":"404 Not Found"}`), a method missing on a path
  that other methods serve too included (`app.Unmounted`).
- `has_feature(options, feature)`: Premium behaviour inside a route that CE also serves (issue weight and
  health status, the `/promote` quick action, `environment_scope` on group variables). CE ignores such
  parameters and leaves the fields out of its answers.
- `version_body(options, metadata=...)`: what `GET /version` and `GET /metadata` answer for that version.

The facts (which endpoint needs which feature, which features are Premium and which version introduced them)
are the endpoint catalogue's (`labdeck.domain.catalogue`: each endpoint holds its `Feature` object,
`labdeck.domain.features`), the same the client's capability checks read; an endpoint that holds no feature
exists in every edition and version the sandbox plays.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any, Final

from labdeck.domain.catalogue import endpoints_shaped
from labdeck.domain.features import Feature
from labdeck.sandbox.options import SandboxOptions

# Fields of an issue that only EE's entity exposes.
EE_ISSUE_FIELDS: Final[tuple[str, ...]] = ("weight", "blocking_issues_count", "health_status", "iteration",
                                           "epic_iid", "epic")


def _missing(feature: Feature, options: SandboxOptions) -> bool:
    if feature.premium and options.edition == "ce":
        return True
    return feature.introduced is not None and options.version_tuple[:2] < feature.introduced


def route_available(path: str, options: SandboxOptions, methods: Iterable[str] = ()) -> bool:
    """Whether GitLab of this edition and version mounts the route `path` (a template like
    `/groups/{id}/iterations`): not when the catalogue's endpoint there needs a feature this edition or
    version lacks. With `methods` (a route's), the catalogue's endpoints of those methods decide (`PUT
    .../protected_environments/:name` came in 15.4, its `GET` in 12.8); a method the catalogue does not
    name there (`HEAD`) goes with the path's endpoints."""
    endpoints = [e for method in methods for e in endpoints_shaped(path, method)] or endpoints_shaped(path)
    return not any(endpoint.feature is not None and _missing(endpoint.feature, options)
                   for endpoint in endpoints)


def has_feature(options: SandboxOptions, feature: Feature) -> bool:
    """Whether a Premium behaviour inside a shared route is on (always, on EE: the sandbox plays a licensed
    Ultimate instance)."""
    return not _missing(feature, options)


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
