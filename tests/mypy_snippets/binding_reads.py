"""Reads through the typed bindings, right and wrong, for mypy to judge (`tests/api/test_binding_types.py`):
each line marked `refused` must be a type error, no other line may be. Never imported or run."""

from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.project_resources import RepositoryTag
from labdeck.api.models.projects import Project
from labdeck.api.services import Services


async def reads(services: Services, client: ApiClient) -> None:
    tags: list[RepositoryTag] = await services.read(b.PROJECT_TAGS, 1, refresh=True)
    project: Project = await services.read(b.PROJECT, 1)
    parsed: list[RepositoryTag] = b.PROJECT_TAGS.parse([])
    wrong: list[Project] = await services.read(b.PROJECT_TAGS, 1)  # refused
    also_wrong: RepositoryTag = await services.read(b.PROJECT, 1)  # refused
    direct: list[Project] = await b.PROJECT_TAGS.read(client, 1)  # refused
    parsed_wrong: list[Project] = b.PROJECT_TAGS.parse([])  # refused
    print(tags, project, parsed, wrong, also_wrong, direct, parsed_wrong)
