"""`labdeck api --read-only` (issue 32 item 7): reads go; a POST of GraphQL queries to the instance's
`/api/graphql` goes (the same rule as the TUI's client); everything else, a GraphQL mutation smuggled in a
`_json` field, in the URL's query or under a form content type included, is refused before anything is sent,
exit status 2 (a refusal, like a usage error), the reason on one line."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from labdeck.cli.api import run_api_command

SECRET = "glpat-ReadOnlyCliSecret42"
GRAPHQL = "https://gitlab.test/api/graphql"
QUERY = "{ currentUser { username } }"


class Fake:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if request.url.path == "/api/graphql":
            return httpx.Response(200, json={"data": {"currentUser": {"username": "root"}}})
        return httpx.Response(200, json={"id": 1})


@pytest.fixture(autouse=True)
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LABDECK_CONFIG", str(tmp_path / "absent.toml"))
    monkeypatch.setenv("GITLAB_URL", "https://gitlab.test")
    monkeypatch.setenv("GITLAB_TOKEN", SECRET)
    for name in ("CI_SERVER_URL", "CI_JOB_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str, Fake]:
    fake = Fake()
    code = run_api_command(argv, transport=httpx.MockTransport(fake))
    out, err = capsys.readouterr()
    assert SECRET not in out + err
    return code, out, err, fake


def test_reads_and_graphql_queries_go(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, fake = run(["--read-only", "projects/1"], capsys)
    assert (code, err, json.loads(out)) == (0, "", {"id": 1})
    code, out, err, fake = run(["--read-only", "-X", "POST", GRAPHQL, "-f", f"query={QUERY}"], capsys)
    assert (code, err) == (0, "") and json.loads(out)["data"]["currentUser"]["username"] == "root"
    assert json.loads(fake.requests[0].content) == {"query": QUERY}


@pytest.mark.parametrize("argv", [
    ["-X", "DELETE", "projects/1/issues/1"],
    ["projects/1/issues", "-f", "title=x"],
    ["-X", "POST", GRAPHQL, "-f", "query=mutation { x }"],
    ["-X", "POST", GRAPHQL, "-f", f"query={QUERY}", "-f", "_json[]=mutation { x }"],
    ["-X", "POST", GRAPHQL + "?query=mutation { x }", "-f", f"query={QUERY}"],
    ["-X", "POST", GRAPHQL, "-f", f"query={QUERY}", "-H", "Content-Type: application/x-www-form-urlencoded"],
    ["-X", "POST", GRAPHQL, "-f", f"query={QUERY}", "-f", "remove_deprecated=true"],
    ["-X", "POST", "https://elsewhere.test/api/graphql", "-f", f"query={QUERY}"],
])
def test_everything_else_is_refused_before_sending(argv: list[str],
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, fake = run(["--read-only", *argv], capsys)
    assert (code, out) == (2, "") and fake.requests == []
    assert err.startswith("labdeck api: instance ") and "is read-only" in err and "refused" in err
    assert err.count("\n") == 1 and "nothing was sent" in err
    code, _, _, fake = run(argv, capsys)  # without --read-only the same command is sent
    assert code == 0 and len(fake.requests) == 1
