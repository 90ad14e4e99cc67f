"""Where a CI/CD job token authenticates, as GitLab decides it (doc/ci/jobs/ci_job_token.md, "Job token
access"; a route opts in with `route_setting :authentication, job_token_allowed: true`).

Everywhere else GitLab does not look at the `JOB-TOKEN` header or `job_token` parameter at all
(`find_user_from_job_token` returns early): the request is anonymous, so an endpoint that needs a user answers
401 `{"message":"401 Unauthorized"}` and a public one answers what anybody may see.

Of the endpoints the sandbox serves, job tokens reach: `GET /job`, the deployments and environments APIs
(every endpoint), the project container registry API, and `GET /projects/:id/repository/tags`.
"""

from __future__ import annotations

from typing import Final

# (method or "*", route template, whether routes below the template are covered too).
ALLOWED: Final[tuple[tuple[str, str, bool], ...]] = (
    ("GET", "/job", False),
    ("*", "/projects/{id}/deployments", True),
    ("*", "/projects/{id}/environments", True),
    ("*", "/projects/{id}/registry/repositories", True),
    ("GET", "/projects/{id}/repository/tags", False),  # the listing only
)


def job_token_allowed(method: str, path: str | None) -> bool:
    """Whether a job token authenticates `method` on the route template `path` (None: not a routed API
    request, never)."""
    if path is None:
        return False
    method = method.upper()
    return any(allowed in ("*", method) and (path == template or (below and path.startswith(template + "/")))
               for allowed, template, below in ALLOWED)
