"""`ProjectsService.set_archived` against the sandbox: archive and unarchive answer the project as GitLab
does (`Entities::Project` with `archived`), each change is journalled with the other as its undo (the
catalogue's rule `archive` for both endpoints), and an undo is refused once the project changed since."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from sandbox_clients import ClientPool

from labdeck.api.journal import Journal, UndoRefused, UndoService
from labdeck.api.projects import ProjectsService
from labdeck.sandbox.app import create_app
from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.options import SandboxOptions

GATEWAY = "acme/platform/api-gateway"


@pytest.fixture
async def pool() -> AsyncIterator[ClientPool]:
    made = ClientPool(create_app(SandboxOptions(scale="tiny"), clock=ManualClock()))
    yield made
    await made.aclose()


def archived(pool: ClientPool) -> bool:
    return bool(pool.app.state.store.project_by_path(GATEWAY).archived)


async def test_archive_is_journalled_and_undone_by_unarchive(pool: ClientPool) -> None:
    client = pool.client()
    client.journal = Journal()
    service = ProjectsService(client)
    project = await service.set_archived(GATEWAY, True)
    assert project.archived is True and archived(pool)
    entry = client.journal.entries()[-1]
    assert (entry.kind, entry.operation, entry.target, entry.ok) == (
        "project.archive", "archive project", GATEWAY, True)
    assert entry.inverse is not None
    assert entry.inverse["path"] == "projects/acme%2Fplatform%2Fapi-gateway/unarchive"
    undo = UndoService(client, client.journal)
    assert await undo.undo(entry) == f"undone: archive project {GATEWAY}"
    assert not archived(pool)
    back = client.journal.entries()[-1]
    assert (back.kind, back.undoes) == ("project.unarchive", entry.id)


async def test_undo_is_refused_when_the_project_changed_since(pool: ClientPool) -> None:
    client = pool.client()
    client.journal = Journal()
    await ProjectsService(client).set_archived(GATEWAY, True)
    entry = client.journal.entries()[-1]
    await ProjectsService(pool.client()).set_archived(GATEWAY, False)  # someone else unarchived it
    with pytest.raises(UndoRefused, match="changed since"):
        await UndoService(client, client.journal).undo(entry)
    again = await ProjectsService(client).set_archived(GATEWAY, False)  # already so: nothing to undo
    assert again.archived is False
    assert client.journal.entries()[-1].no_undo == "nothing to undo"
