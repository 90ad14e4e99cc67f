"""One fact, one figure (issue 34): one repository's size is the same figure on every screen and in the CLI.
`acme/infra/terraform` has one registry repository, so its project's `container_registry_size` (the storage
view, GitLab's statistic: the sum of its repositories' sizes) is that repository's size too. The storage view,
the registry list, the overview's registry line and `labdeck registry list --json` must all show its unique
blobs (`domain.registry_sizes`), the same bytes, the same text, and say which figure it is. (Before, the
storage view showed the sandbox's made-up statistic and the overview a sum of manifest sizes counting a
shared layer in every image.)"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from snapshot_apps import make_app, settle, until
from textual.widgets import OptionList, Static
from tiny_sandbox import Sandbox

from labdeck.cli.registry import run_registry_command
from labdeck.domain.registry_sizes import FREES_HEADER, SIZE_HEADER, Figure, size_text
from labdeck.sandbox.seed.registry import registry_data, repository_size
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.registry.registry import RegistryScreen
from labdeck.tui.screens.registry.storage import RegistryStorageScreen
from labdeck.tui.screens.shell.home import HomeScreen
from labdeck.tui.screens.shell.overview import OverviewPanel

TERRAFORM = "acme/infra/terraform"


def cell(table: Any, row: Any, key: str) -> str:
    index = [column.key for column in table.columns].index(key)
    return str(table.model.cells_of(row)[index])


def header(table: Any, key: str) -> str:
    return next(str(column.label) for column in table.columns if column.key == key)


async def test_one_repository_has_one_size_everywhere(capsys: pytest.CaptureFixture[str]) -> None:
    sandbox = Sandbox()
    project = sandbox.store.project_by_path(TERRAFORM)
    (repo,) = registry_data(sandbox.store).of_projects({project.id})
    expected = repository_size(repo)
    shown = size_text(Figure(expected))
    tag_sum = sum({t.digest: t.total_size for t in repo.tags.values()}.values())
    assert expected < tag_sum  # the images share layers: the manifests' sizes added up say more

    command = ["list", TERRAFORM, "--json", "--demo", "--no-cache"]  # the CLI runs its own event loop
    assert await asyncio.to_thread(run_registry_command, command,
                                   transport=httpx.ASGITransport(sandbox.asgi)) == 0
    listed = json.loads(capsys.readouterr().out)
    (entry,) = listed["repositories"]
    assert entry["id"] == repo.id and entry["path"] == TERRAFORM
    assert entry["size"] == {"bytes": expected, "exact": True, "text": shown, "means": entry["size"]["means"]}
    assert "unique blobs" in entry["size"]["means"]

    app = make_app(transport_factory=sandbox.factory)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        registry = RegistryScreen(AreaRequest(scope=TERRAFORM), now=sandbox.now)
        await app.push_screen(registry)
        await until(pilot, lambda: registry.table.rows and cell(registry.table, registry.table.rows[0],
                                                                "size") not in ("", "…"),
                    "the registry list's size")
        assert cell(registry.table, registry.table.rows[0], "size") == shown
        assert header(registry.table, "size") == SIZE_HEADER
        assert cell(registry.table, registry.table.rows[0], "id") == str(repo.id)

        app.pop_screen()  # back to the home view and its overview, read again (`r`), before the storage
        # view's simulations read other repositories (the overview names the five largest read)
        await until(pilot, lambda: isinstance(app.screen, HomeScreen), "the home view")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot, rounds=2)
        options = app.screen.query_one(OverviewPanel).query_one("#overview-lines", OptionList)
        found = {}
        for index in range(options.option_count):
            option = options.get_option_at_index(index)
            if option.id:
                found[option.id] = str(option.prompt)
        line = found[f"registry.size.{repo.id}"]
        assert line.strip().startswith(f"{shown}  {TERRAFORM}")
        assert any("unique blobs" in str(options.get_option_at_index(i).prompt)
                   for i in range(options.option_count))

        storage = RegistryStorageScreen("acme", now=sandbox.now)
        await app.push_screen(storage)
        await until(pilot, lambda: any(r.project.path == TERRAFORM for r in storage.table.rows),
                    "the storage view's rows")
        row = next(r for r in storage.table.rows if r.project.path == TERRAFORM)
        assert row.project.registry_size == expected
        assert cell(storage.table, row, "size") == shown
        assert header(storage.table, "size") == SIZE_HEADER and header(storage.table, "frees") == FREES_HEADER
        title = str(storage.query_one("#storage-title", Static).render())
        assert "unique blobs" in title
        # and a run never frees more than the project holds (it said `68.2 MB ... frees 5.0 GB`)
        await until(pilot, lambda: all(r.frees is not None or r.error is not None for r in storage.table.rows
                                       if r.project.policy is not None and r.project.policy.enabled),
                    "the storage view's simulations")
        simulated = [r for r in storage.table.rows if r.frees is not None]
        assert simulated and all(r.frees.bytes <= (r.project.registry_size or 0) for r in simulated)
