"""Where a CI/CD job token authenticates, as GitLab decides it (doc/ci/jobs/ci_job_token.md, "Job token
access"; a route opts in with `route_setting :authentication, job_token_allowed: true`).

Everywhere else GitLab does not look at the `JOB-TOKEN` header or `job_token` parameter at all
(`find_user_from_job_token` returns early): the request is anonymous, so an endpoint that needs a user answers
401 `{"message":"401 Unauthorized"}` and a public one answers what anybody may see.

Of the endpoints the sandbox serves, job tokens reach: `GET /job`, the deployments and environments APIs
(every endpoint), the project container registry API, and `GET /projects/:id/repository/tags`: the
endpoint catalogue (`labdeck.domain.catalogue`, `job_token=True`) says which.
"""

from __future__ import annotations

from labdeck.domain.catalogue import endpoints_shaped


def job_token_allowed(method: str, path: str | None) -> bool:
    """Whether a job token authenticates `method` on the route template `path` (None: not a routed API
    request, never): where the catalogue's endpoint says `job_token`."""
    if path is None:
        return False
    return any(endpoint.job_token for endpoint in endpoints_shaped(path, method))
