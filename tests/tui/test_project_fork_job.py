"""The fork job on its own (no Textual): progress follows `import_status` step by step, a `failed` import
fails the job with its reason, and a fork finished at once needs no polling."""

from __future__ import annotations

from typing import Any

from labdeck.api.models.projects import Project
from labdeck.tui.jobs import JobCentre, JobState
from labdeck.tui.screens.projects.dialogs import ForkRequest
from labdeck.tui.screens.projects.forks import ForkFailed, run_fork

REQUEST = ForkRequest("opensource", None, None, None, None, False)
SOURCE = Project(id=1, path_with_namespace="acme/app")


class FakeForks:
    """Answers the fork with `scheduled`, then each poll with the next status of `statuses`."""

    def __init__(self, statuses: list[str]) -> None:
        self.statuses = statuses
        self.polls = 0
        self.sent: dict[str, Any] = {}

    async def fork(self, project: int, **options: Any) -> Project:
        self.sent = {"project": project, **options}
        return Project(id=9, path_with_namespace="opensource/app", import_status="scheduled")

    async def import_status(self, project_id: int) -> Project:
        status = self.statuses[min(self.polls, len(self.statuses) - 1)]
        self.polls += 1
        return Project(id=project_id, path_with_namespace="opensource/app", import_status=status)


async def no_sleep(seconds: float) -> None:
    return None


async def run(service: FakeForks) -> Any:
    centre = JobCentre()
    seen: list[int] = []
    centre.on_change(lambda job: seen.append(job.done))
    job = centre.start("Fork", lambda job: run_fork(job, service, SOURCE, REQUEST,  # type: ignore[arg-type]
                                                    sleep=no_sleep))
    await centre.wait(job)
    return job, seen


async def test_progress_follows_import_status_to_finished() -> None:
    service = FakeForks(["scheduled", "started", "started", "finished"])
    job, seen = await run(service)
    assert job.state is JobState.SUCCEEDED and job.done == 3 and job.total == 3
    assert service.polls == 4 and {1, 2, 3} <= set(seen)
    assert service.sent["namespace_path"] == "opensource" and service.sent["project"] == 1
    assert service.sent["mr_default_target_self"] is None  # unchecked: GitLab's default, not sent
    assert job.results[0].item == "opensource/app" and job.results[0].ok


async def test_failed_import_fails_the_job() -> None:
    service = FakeForks(["started", "failed"])
    job, _ = await run(service)
    assert job.state is JobState.FAILED
    assert "failed to import" in (job.error or "") and not job.results[0].ok


def test_fork_failed_is_an_expected_error() -> None:
    from labdeck.tui.errors import is_expected

    assert is_expected(ForkFailed("x"))
