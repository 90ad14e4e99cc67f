"""`CompletionSource` against the tiny sandbox: candidates per kind and scope, existence checks, the cache
(TTL, bound, narrowing) and one request in flight per question."""

from __future__ import annotations

import asyncio

from groups_sandbox import Sandbox, sandbox_fixture  # noqa: F401

from labdeck.api.completion import CompletionSource
from labdeck.domain.capabilities import Capabilities


async def test_candidates_of_each_kind(sandbox: Sandbox) -> None:
    source = CompletionSource(sandbox.client())
    assert "alice" in await source.candidates("user", "al")
    assert all(name.startswith("al") for name in await source.candidates("user", "al"))
    project = ("project", "acme/platform/api-gateway")
    assert await source.candidates("label", "ba", project) == ("backend",)
    assert "api" in await source.candidates("label", "a", project)  # a group label above the project
    assert await source.candidates("label", "good", ("group", "acme")) == ("good first issue",)
    assert set(await source.candidates("milestone", "v", project)) == {"v1.0", "v2.0"}
    assert "v2.0" in await source.candidates("milestone", "v2", ("group", "acme"))
    assert "acme/platform/api-gateway" in await source.candidates("project", "acme/platform/api")
    assert await source.candidates("group", "acme/pla") == ("acme/platform",)
    paths = await source.candidates("path", "acme/pla")
    assert paths[0] == "acme/platform" and "acme/platform/api-gateway" in paths
    assert await source.candidates("label", "b") == ()  # no instance-wide list of labels


async def test_exists(sandbox: Sandbox) -> None:
    source = CompletionSource(sandbox.client())
    assert await source.exists("user", "alice") is True
    assert await source.exists("user", "nosuchuser") is False
    assert await source.exists("label", "bug", ("group", "acme")) is True
    assert await source.exists("label", "Backend", ("group", "acme")) is True  # projects' labels count
    assert await source.exists("label", "nosuchlabel", ("group", "acme")) is False
    assert await source.exists("milestone", "v2.0", ("group", "acme")) is True
    assert await source.exists("milestone", "v9", ("group", "acme")) is False
    assert await source.exists("label", "nosuchlabel") is None  # the instance: cannot tell
    assert await source.exists("label", "x", ("group", "no/such/group")) is None


async def test_old_gitlab_proves_nothing_for_a_group(sandbox: Sandbox) -> None:
    old = Capabilities(edition="ee", version=(16, 0, 0))
    source = CompletionSource(sandbox.client(), supports=lambda f: old.supports(f) is None)
    assert await source.exists("milestone", "v9", ("group", "acme")) is None  # before 16.7
    assert await source.exists("label", "nosuchlabel", ("group", "acme")) is False  # 13.6 is older


async def test_answers_are_kept_narrowed_and_expire(sandbox: Sandbox) -> None:
    now = [0.0]
    source = CompletionSource(sandbox.client(), ttl=60, clock=lambda: now[0])
    scope = ("group", "acme")
    first = await source.candidates("label", "doc", scope)
    assert first == ("documentation",) and source.requests == 1
    assert await source.candidates("label", "doc", scope) == first and source.requests == 1
    assert await source.candidates("label", "docu", scope) == first and source.requests == 1  # narrowed
    await source.candidates("label", "d", scope)  # shorter: asked
    assert source.requests == 2
    await source.candidates("label", "de", scope)  # under three characters: GitLab matches exactly
    assert source.requests == 3
    now[0] = 61
    await source.candidates("label", "doc", scope)
    assert source.requests == 4
    project = ("project", "acme/platform/api-gateway")
    everything = await source.candidates("label", "", project)  # every label: one page holds them all
    assert "backend" in everything and source.requests == 5
    assert await source.candidates("label", "ba", project) == ("backend",) and source.requests == 5


async def test_bounded(sandbox: Sandbox) -> None:
    source = CompletionSource(sandbox.client(), max_entries=3)
    for prefix in ("a", "b", "c", "d", "e"):
        await source.candidates("user", prefix)
    assert len(source._cache) == 3


async def test_one_request_in_flight_per_question(sandbox: Sandbox) -> None:
    client = sandbox.client()
    source = CompletionSource(client)
    sent: list[str] = []
    client.request_log.subscribe(lambda entry: sent.append(entry.path))
    answers = await asyncio.gather(*(source.candidates("user", "bo") for _ in range(5)))
    assert len(set(answers)) == 1 and source.requests == 1
    assert len([path for path in sent if path.startswith("/users")]) <= 1


async def test_a_cancelled_caller_leaves_the_answer_to_the_others(sandbox: Sandbox) -> None:
    source = CompletionSource(sandbox.client())
    first = asyncio.ensure_future(source.candidates("user", "car"))
    second = asyncio.ensure_future(source.candidates("user", "car"))
    await asyncio.sleep(0)
    first.cancel()
    assert "carol" in await second
    assert source.requests == 1


async def test_server_text_is_sanitised(sandbox: Sandbox) -> None:
    client = sandbox.client()
    await client.post_json("/groups/acme/labels", {"name": "evil\x1b[31m", "color": "#ff0000"})
    source = CompletionSource(client)
    names = await source.candidates("label", "evil", ("group", "acme"))
    assert names and "\x1b" not in names[0]
