"""`Owner`: one value says whose members or variables a pane shows, and maps each read and write to the
service methods of that owner (the instance's variables to the admin endpoints, a group's or a project's to
the owner-taking ones). Unit tests: no app, a recording service."""

from __future__ import annotations

from typing import Any

import pytest

from labdeck.api.models.projects import Project
from labdeck.api.models.variables import CiVariable
from labdeck.tui.kit.owner import INSTANCE, Owner, project_owner


class Recorder:
    """Any service: every call is recorded as (method, args) and answers []."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, name: str) -> Any:
        async def call(*args: Any, **kwargs: Any) -> list[Any]:
            self.calls.append((name, args))
            return []
        return call


VALUES = {"key": "K", "value": "v", "variable_type": "env_var", "protected": False, "masked": False,
          "raw": False, "description": "", "environment_scope": "*"}


@pytest.mark.parametrize(("owner", "listed", "created", "deleted"), [
    (Owner("groups", 5, "acme"), ("variables", (("groups", 5),)), "create_variable", "delete_variable"),
    (Owner("projects", 7, "acme/app"), ("variables", (("projects", 7),)), "create_variable",
     "delete_variable"),
    (INSTANCE, ("instance_variables", ()), "create_instance_variable", "delete_instance_variable"),
])
async def test_each_owner_reads_and_writes_its_own_variables(owner: Owner, listed: tuple[str, Any],
                                                             created: str, deleted: str) -> None:
    service = Recorder()
    await owner.variables(service)  # type: ignore[arg-type]
    await owner.change_variable(service, "add", None, VALUES)  # type: ignore[arg-type]
    await owner.change_variable(service, "delete", CiVariable(key="K"), {})  # type: ignore[arg-type]
    assert [name for name, _ in service.calls] == [listed[0], created, deleted]
    assert service.calls[0][1] == listed[1]


def test_the_instance_has_no_members_and_a_project_names_itself() -> None:
    with pytest.raises(ValueError):
        _ = INSTANCE.source
    owner = project_owner(Project(id=7, path_with_namespace="acme/app"))
    assert (owner.source, owner.where) == (("projects", 7), "acme/app")
    assert "administrators" in INSTANCE.forbidden_hint and "Maintainer" in owner.forbidden_hint


def test_the_instance_form_has_no_scope_and_its_delete_names_every_pipeline() -> None:
    form = INSTANCE.variable_form(None, scoped=True)
    assert "environment_scope" not in {field.key for field in form.fields}
    confirm = INSTANCE.delete_variable_screen(CiVariable(key="K", masked=True))
    assert "Every pipeline" in str(confirm.message)
