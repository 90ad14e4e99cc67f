"""A binding types its read: mypy refuses a binding read into the wrong model (issue 35).

`api/bindings.py` ties each endpoint to its model (`Listing(ep.PROJECT_TAGS, RepositoryTag)`), and every
way of reading through a binding (`Services.read`, the binding's own `read` and `parse`) is typed by it. So
`x: list[Project] = await services.read(PROJECT_TAGS, ...)` is a type error, where the old
`read_many(ep.PROJECT_TAGS, ...)` returned whatever type the caller wrote.

The snippet (`tests/mypy_snippets/binding_reads.py`) is checked in the suite's one mypy run (`mypy_run.py`,
with the project's own configuration, beside `test_types.py`'s check of the project), and the test asserts
both that the wrong reads are refused, each on its own line, and that the right ones pass.
"""

from __future__ import annotations

import pytest

from mypy_run import SNIPPETS, MypyRun

SNIPPET = SNIPPETS / "binding_reads.py"


@pytest.mark.timeout(600)  # the suite's mypy run: about 20 s from cold on two cores
def test_mypy_refuses_a_binding_read_into_the_wrong_model(mypy_run: MypyRun) -> None:
    refused = [number for number, line in enumerate(SNIPPET.read_text().splitlines(), 1)
               if "# refused" in line]
    errors = mypy_run.errors_in(SNIPPET)
    lines = sorted(int(line.split(":")[1]) for line in errors)
    assert len(refused) == 4 and lines == refused, mypy_run.stdout[-6000:] + mypy_run.stderr[-2000:]
    # each names the model the binding gives and the one asked for: through `Services.read` mypy infers
    # the model from the variable and refuses the binding as the argument; elsewhere, the assignment
    assert all("RepositoryTag" in line and "Project" in line for line in errors), errors
    assert '"Listing[RepositoryTag]"; expected "Listing[Project]"' in errors[0], errors[0]
    assert '"list[RepositoryTag]", variable has type "list[Project]"' in errors[2], errors[2]
