"""`:registry` on a group of many repositories reads sizes for the rows the operator sees only (issue 35).

It read every listed repository's tag details and manifests (four repositories at a time) to fill its size
column: on a gitlab.com group of thousands of repositories, thousands of reads nobody looked at. Now:

- a size is read for the rows on screen and the cursor's, by the cheapest request GitLab has:
  `GET /registry/repositories/:id?size=true`, the registry's deduplicated size, one request
  (`doc/api/container_registry.md`, "Get details of a single repository"), and no tag or GraphQL request;
- where the instance has no such figure (`"size": null`: a registry without the metadata database,
  `app/models/container_repository.rb#size`), that repository's tags are read, for the rows on screen only;
- at most `SIZES_AT_ONCE` reads at a time; a row scrolled away before its size came is read no more (its
  read cancelled) and its cell says `not read yet`, as every row not read says.

Requests are counted at the transport, as the sandbox received them."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import httpx
from snapshot_apps import make_app, settle, until
from tiny_sandbox import Sandbox

from labdeck.api.registry_paths import SIZES_AT_ONCE
from labdeck.domain.registry_sizes import Figure, size_text
from labdeck.sandbox.seed.registry import add_repository, make_tags, registry_data, repository_size
from labdeck.tui.areas import AreaRequest
from labdeck.tui.screens.registry.registry import RegistryScreen
from labdeck.tui.screens.registry.size_column import NOT_READ, READING

GROUP = "acme"
PROJECT = "acme/infra/terraform"
MANY = 60


class Counted(httpx.AsyncBaseTransport):
    """The sandbox, with every request seen; `size=true` reads wait while `held` is set."""

    def __init__(self, inner: httpx.AsyncBaseTransport) -> None:
        self.inner = inner
        self.requests: list[httpx.Request] = []
        self.held = False
        self.waiting = 0
        self._release: asyncio.Event | None = None

    def release(self) -> None:
        self.held = False
        if self._release is not None:
            self._release.set()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.held and size_read(request) is not None:
            self._release = self._release or asyncio.Event()
            self.waiting += 1
            try:
                await self._release.wait()
            finally:
                self.waiting -= 1
        return await self.inner.handle_async_request(request)

    def size_reads(self) -> list[int]:
        return [repo for r in self.requests if (repo := size_read(r)) is not None]

    def tag_reads(self) -> list[httpx.Request]:
        """Requests for tags or manifests: a size computed from tag details."""
        return [r for r in self.requests
                if "/tags" in r.url.path or r.url.path.endswith("/graphql") or "tags" in r.url.params]


def size_read(request: httpx.Request) -> int | None:
    """The repository whose size `request` reads (`GET /registry/repositories/:id?size=true`), if it does."""
    parts = request.url.path.split("/")
    if request.method == "GET" and parts[-2:-1] == ["repositories"] and parts[-3:-2] == ["registry"] \
            and request.url.params.get("size") == "true":
        return int(parts[-1])
    return None


def many_repositories(**options: Any) -> Sandbox:
    sandbox = Sandbox(**options)
    project = sandbox.store.project_by_path(PROJECT)
    rng = random.Random(35)
    for n in range(MANY):
        add_repository(sandbox.store, project, f"image-{n:02d}",
                       make_tags(rng, sandbox.store.anchor, rng.randrange(3, 8)))
    return sandbox


def cell(screen: RegistryScreen, row: Any) -> str:
    index = [column.key for column in screen.table.columns].index("size")
    return str(screen.table.model.cells_of(row)[index])


def on_screen(screen: RegistryScreen) -> list[Any]:
    return screen.table.rows_on_screen()


def all_read(screen: RegistryScreen) -> bool:
    rows = on_screen(screen)
    return bool(rows) and all(cell(screen, row) not in (NOT_READ, READING) for row in rows)


async def open_group(pilot: Any, sandbox: Sandbox) -> RegistryScreen:
    await settle(pilot)
    screen = RegistryScreen(AreaRequest(scope=GROUP), now=sandbox.now)
    await pilot.app.push_screen(screen)
    await until(pilot, lambda: len(screen.table.rows) > MANY, "the group's repositories")
    return screen


async def test_a_group_reads_the_sizes_of_the_rows_on_screen_only() -> None:
    sandbox = many_repositories()
    transport = Counted(httpx.ASGITransport(sandbox.asgi))
    app = make_app(transport_factory=lambda settings: transport)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_group(pilot, sandbox)
        await until(pilot, lambda: all_read(screen), "the sizes of the rows on screen")
        await settle(pilot)
        shown = {row.id for row in on_screen(screen)}
        assert 5 < len(shown) < len(screen.table.rows) / 2
        assert sorted(transport.size_reads()) == sorted(shown)  # each row shown once, no other row
        assert transport.tag_reads() == []  # GitLab's own figure: no tag, no manifest read
        records = registry_data(sandbox.store).repositories
        for row in on_screen(screen):  # the one figure: the sandbox's unique blobs, exact
            assert cell(screen, row) == size_text(Figure(repository_size(records[row.id])))
        hidden = [row for row in screen.table.visible_rows if row.id not in shown]
        assert {cell(screen, row) for row in hidden} == {NOT_READ}

        screen.table.focus()
        await pilot.press("pagedown")
        await until(pilot, lambda: all_read(screen), "the sizes of the next rows")
        await settle(pilot)
        now_shown = {row.id for row in on_screen(screen)}
        assert now_shown - shown
        assert sorted(transport.size_reads()) == sorted(shown | now_shown)

        top = screen.table.scroll_y
        screen.table.scroll_end(animate=False, force=True)  # as the wheel does: the cursor stays
        await until(pilot, lambda: screen.table.scroll_y > top + 10 and all_read(screen),
                    "the sizes of the last rows, scrolled to")
        await settle(pilot)
        last = {row.id for row in on_screen(screen)}
        assert last - shown - now_shown and screen.table.cursor_row.id not in last
        assert sorted(transport.size_reads()) == sorted(shown | now_shown | last)

        app.pop_screen()  # a second visit: what the session read costs nothing but the listing
        await settle(pilot)
        before = len(transport.requests)
        again = await open_group(pilot, sandbox)
        await until(pilot, lambda: all_read(again), "the sizes known")
        await settle(pilot)
        assert len(transport.size_reads()) == len(shown | now_shown | last)
        assert all("/registry/repositories" in r.url.path and "page" in r.url.params
                   for r in transport.requests[before:])


async def test_rows_scrolled_away_are_read_no_more_and_at_most_four_at_a_time() -> None:
    sandbox = many_repositories()
    transport = Counted(httpx.ASGITransport(sandbox.asgi))
    app = make_app(transport_factory=lambda settings: transport)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        transport.held = True  # the size reads wait at the instance until released
        screen = await open_group(pilot, sandbox)
        first = {row.id for row in on_screen(screen)}
        await until(pilot, lambda: transport.waiting == SIZES_AT_ONCE and screen.sizes.reading == first,
                    "the first rows' reads, four of them sent")
        assert len(first) > SIZES_AT_ONCE
        await pilot.pause(0.2)
        assert transport.waiting == SIZES_AT_ONCE and len(transport.size_reads()) == SIZES_AT_ONCE
        sent_first = set(transport.size_reads())

        screen.table.focus()
        await pilot.press("pagedown", "pagedown")
        second = {row.id for row in on_screen(screen)}
        assert not first & second
        await until(pilot, lambda: screen.sizes.reading == second
                    and len(transport.size_reads()) == 2 * SIZES_AT_ONCE,
                    "the reads of the rows scrolled away dropped, four of the new rows' sent")
        await pilot.pause(0.2)
        assert len(transport.size_reads()) == 2 * SIZES_AT_ONCE  # (those dropped were in flight: sent)
        assert set(transport.size_reads()[SIZES_AT_ONCE:]) <= second
        assert {cell(screen, row) for row in screen.table.visible_rows if row.id in first} == {NOT_READ}

        transport.release()
        await until(pilot, lambda: all_read(screen), "the sizes of the rows now on screen")
        await settle(pilot)
        assert {cell(screen, row) for row in screen.table.visible_rows if row.id in first} == {NOT_READ}
        assert set(transport.size_reads()) == sent_first | second  # no other row read; those scrolled
        assert set(transport.size_reads()) & first == sent_first  # away before their turn never sent


async def test_without_the_instance_s_figure_only_the_rows_on_screen_read_their_tags() -> None:
    """A registry without the metadata database answers `"size": null`: the size is the tags' unique
    blobs, read (tags and manifests) for the rows on screen only."""
    sandbox = many_repositories(registry_sizes=False)
    transport = Counted(httpx.ASGITransport(sandbox.asgi))
    app = make_app(transport_factory=lambda settings: transport)
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await open_group(pilot, sandbox)
        await until(pilot, lambda: all_read(screen), "the sizes of the rows on screen")
        await settle(pilot)
        shown = {row.id for row in on_screen(screen)}
        assert sorted(transport.size_reads()) == sorted(shown)
        read_tags = set()
        for request in transport.tag_reads():
            text = request.url.path + (request.content.decode() if request.content else "")
            found = {repo for repo in (r.id for r in screen.table.rows)
                     if f"/repositories/{repo}" in text or f"ContainerRepository/{repo}\"" in text
                     or json.dumps(f"gid://gitlab/ContainerRepository/{repo}") in text}
            assert found, request.url
            read_tags |= found
        assert read_tags == shown
        records = registry_data(sandbox.store).repositories
        for row in on_screen(screen):  # the same figure, from the tags' layers
            assert cell(screen, row) == size_text(Figure(repository_size(records[row.id])))
