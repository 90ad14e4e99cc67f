"""A binding types its read: mypy refuses a binding read into the wrong model (issue 35).

`api/bindings.py` ties each endpoint to its model (`Listing(ep.PROJECT_TAGS, RepositoryTag)`), and every
way of reading through a binding (`Services.read`, the binding's own `read` and `parse`) is typed by it. So
`x: list[Project] = await services.read(PROJECT_TAGS, ...)` is a type error, where the old
`read_many(ep.PROJECT_TAGS, ...)` returned whatever type the caller wrote.

The snippet is checked with the project's own mypy configuration and the same cache as `test_types.py`
(only the snippet is new to mypy, so it takes seconds once the cache is warm), and the test asserts both
that the wrong reads are refused, each on its own line, and that the right ones pass.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SNIPPET = '''\
from labdeck.api import bindings as b
from labdeck.api.client import ApiClient
from labdeck.api.models.project_resources import RepositoryTag
from labdeck.api.models.projects import Project
from labdeck.api.services import Services


async def reads(services: Services, client: ApiClient) -> None:
    tags: list[RepositoryTag] = await services.read(b.PROJECT_TAGS, 1, refresh=True)
    project: Project = await services.read(b.PROJECT, 1)
    parsed: list[RepositoryTag] = b.PROJECT_TAGS.parse([])
    wrong: list[Project] = await services.read(b.PROJECT_TAGS, 1)  # line 12: refused
    also_wrong: RepositoryTag = await services.read(b.PROJECT, 1)  # line 13: refused
    direct: list[Project] = await b.PROJECT_TAGS.read(client, 1)  # line 14: refused
    parsed_wrong: list[Project] = b.PROJECT_TAGS.parse([])  # line 15: refused
    print(tags, project, parsed, wrong, also_wrong, direct, parsed_wrong)
'''


@pytest.mark.timeout(600)  # seconds with mypy's cache warm; about 20 s from cold on two cores
def test_mypy_refuses_a_binding_read_into_the_wrong_model(tmp_path: Path) -> None:
    snippet = tmp_path / "binding_reads.py"
    snippet.write_text(SNIPPET)
    env = {**os.environ, "MYPYPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, "-m", "mypy", "--config-file", "pyproject.toml",
                           "--cache-dir", str(ROOT / ".mypy_cache"), "--no-error-summary", str(snippet)],
                          cwd=ROOT, capture_output=True, text=True, timeout=580, env=env)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    lines = sorted(int(line.split(":")[1]) for line in errors)
    assert lines == [12, 13, 14, 15], done.stdout[-6000:] + done.stderr[-2000:]
    # each names the model the binding gives and the one asked for: through `Services.read` mypy infers
    # the model from the variable and refuses the binding as the argument; elsewhere, the assignment
    assert all("RepositoryTag" in line and "Project" in line for line in errors), errors
    assert '"Listing[RepositoryTag]"; expected "Listing[Project]"' in errors[0], errors[0]
    assert '"list[RepositoryTag]", variable has type "list[Project]"' in errors[2], errors[2]
