"""What a CI/CD job token reaches (GitLab's doc/ci/jobs/ci_job_token.md, "Job token access"), so labdeck
offers only that when it is signed in with one (`auth = "job"`, the `CI_JOB_TOKEN` fallback).

GitLab ignores a job token on every other endpoint: the request is anonymous, so `GET /user`, `GET /version`
and the admin areas answer 401. `GET /job` (which accepts the token) names the job, its project and the user
who ran it; labdeck reads that instead of `GET /user`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final
from urllib.parse import unquote, urlsplit

from labdeck.domain.features import PROTECTED_ENVIRONMENTS, Feature

# labdeck areas a job token can work in: the job's own project's container registry and its deployments
# and environments; labdeck's own tasks and the request log need no API at all.
JOB_TOKEN_AREAS: Final[frozenset[str]] = frozenset({"registry", "deployments", "tasks", "log"})
# Areas opened on the job's project at once (they are about one project).
PROJECT_SCOPED_AREAS: Final[frozenset[str]] = frozenset({"registry", "deployments"})
# Features of those areas that a job token cannot reach.
JOB_TOKEN_UNREACHABLE: Final[frozenset[Feature]] = frozenset({PROTECTED_ENVIRONMENTS})
NOT_WITH_JOB_TOKEN: Final = "not reachable with a CI job token"


@dataclass(frozen=True)
class JobScope:
    """The job whose token labdeck uses: its id, its project (id and path) and who ran it."""

    job_id: int
    project_id: int
    project_path: str
    username: str
    web_url: str = ""

    def explanation(self) -> str:
        """One line for the home screen."""
        return (f"Signed in with the CI job token of job {self.job_id} in {self.project_path} (run by "
                f"{self.username}): a job token reaches only that project's container registry, deployments "
                "and environments.")


def project_path_from_job_url(web_url: str, instance_url: str) -> str | None:
    """`https://gl.example/acme/app/-/jobs/7` on `https://gl.example` -> `acme/app` (None when the URL is not
    a job URL under the instance's path)."""
    job_path = unquote(urlsplit(web_url).path)
    base_path = urlsplit(instance_url).path.rstrip("/")
    if base_path and not job_path.startswith(base_path + "/"):
        return None
    job_path = job_path[len(base_path):].strip("/")
    project, sep, _ = job_path.partition("/-/jobs/")
    return project if sep and project else None
