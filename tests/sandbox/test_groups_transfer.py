"""Group export (202, 404 until ready), import (multipart, max_import_size), and the relations export with
its status and per-relation download (GitLab's API docs and the design appendix)."""

from __future__ import annotations

import gzip
import json

import httpx
from groups_fixtures import ALICE, ROOT, call
from starlette.applications import Starlette

from labdeck.sandbox.clock import ManualClock
from labdeck.sandbox.routes.groups.transfer import read_archive, state


async def test_export_is_404_until_ready(clock: ManualClock, client: httpx.AsyncClient) -> None:
    before = await call(client, "GET", "/groups/acme/export/download", ROOT)
    assert (before.status_code, before.json()) == (404, {"message": "404 Not found"})
    started = await call(client, "POST", "/groups/acme/export", ROOT)
    assert (started.status_code, started.json()) == (202, {"message": "202 Accepted"})
    assert (await call(client, "GET", "/groups/acme/export/download", ROOT)).status_code == 404
    clock.advance(0.1)
    ready = await call(client, "GET", "/groups/acme/export/download", ROOT)
    assert ready.status_code == 200 and ready.headers["content-type"] == "application/gzip"
    assert "acme_export.tar.gz" in ready.headers["content-disposition"]
    tree = read_archive(ready.content)
    assert tree is not None and tree["group"]["full_path"] == "acme"
    assert {lb["name"] for lb in tree["labels"]} == {"bug", "feature", "documentation"}
    assert {g["group"]["path"] for g in tree["subgroups"]} == {"platform", "infra", "security"}
    assert (await call(client, "POST", "/groups/acme/export", ALICE)).status_code == 403


async def test_import_restores_the_archive(clock: ManualClock, client: httpx.AsyncClient) -> None:
    await call(client, "POST", "/groups/acme/export", ROOT)
    clock.advance(0.1)
    archive = (await call(client, "GET", "/groups/acme/export/download", ROOT)).content
    imported = await call(
        client,
        "POST",
        "/groups/import",
        ROOT,
        data={"name": "Acme Copy", "path": "acme-copy"},
        files={"file": ("acme.tar.gz", archive, "application/gzip")},
    )
    assert (imported.status_code, imported.json()) == (202, {"message": "202 Accepted"})
    group = (await call(client, "GET", "/groups/acme-copy", ROOT)).json()
    assert group["visibility"] == "private" and group["parent_id"] is None
    assert (await call(client, "GET", "/groups/acme-copy/labels", ROOT)).json() == []
    clock.advance(0.1)
    labels = {lb["name"] for lb in (await call(client, "GET", "/groups/acme-copy/labels", ROOT)).json()}
    assert labels == {"bug", "feature", "documentation"}
    assert len((await call(client, "GET", "/groups/acme-copy/badges", ROOT)).json()) == 2


async def test_import_into_a_parent_inherits_visibility(client: httpx.AsyncClient) -> None:
    made = await call(
        client,
        "POST",
        "/groups/import",
        ROOT,
        data={"name": "Sub", "path": "sub", "parent_id": "27"},
        files={"file": ("x.tar.gz", b"not an archive", "application/gzip")},
    )
    assert made.status_code == 202
    sub = (await call(client, "GET", "/groups/acme%2Fplatform%2Fsub", ROOT)).json()
    assert (sub["visibility"], sub["parent_id"]) == ("public", 27)
    refused = await call(
        client,
        "POST",
        "/groups/import",
        ALICE,
        data={"name": "S", "path": "s", "parent_id": "27"},
        files={"file": ("x.tar.gz", b"x", "application/gzip")},
    )
    assert refused.status_code == 403


async def test_import_rules(app: Starlette, client: httpx.AsyncClient) -> None:
    missing = await call(
        client, "POST", "/groups/import", ROOT, data={"name": "N", "path": "n"}, files={"other": ("x", b"x")}
    )
    assert (missing.status_code, missing.json()) == (400, {"error": "file is missing"})
    taken = await call(
        client,
        "POST",
        "/groups/import",
        ROOT,
        data={"name": "A", "path": "acme"},
        files={"file": ("x.tar.gz", b"x")},
    )
    assert taken.json() == {"message": {"path": ["has already been taken"]}}
    state(app.state.store).max_import_size = 1
    too_big = await call(
        client,
        "POST",
        "/groups/import",
        ROOT,
        data={"name": "B", "path": "big"},
        files={"file": ("x.tar.gz", b"x" * (1024 * 1024 + 1))},
    )
    assert too_big.status_code == 413
    assert (await call(client, "GET", "/groups/big", ROOT)).status_code == 404
    fits = await call(
        client,
        "POST",
        "/groups/import",
        ROOT,
        data={"name": "B", "path": "big"},
        files={"file": ("x.tar.gz", b"x" * 1024)},
    )
    assert fits.status_code == 202


async def test_relations_export_status_and_download(
    app: Starlette, clock: ManualClock, client: httpx.AsyncClient
) -> None:
    assert (await call(client, "GET", "/groups/acme/export_relations/status", ROOT)).json() == []
    state(app.state.store).failing_relations["boards"] = "Boards could not be exported"
    started = await call(client, "POST", "/groups/acme/export_relations", ROOT)
    assert (started.status_code, started.json()) == (202, {"message": "202 Accepted"})
    pending = (await call(client, "GET", "/groups/acme/export_relations/status", ROOT)).json()
    assert {e["status"] for e in pending} == {0}
    assert set(pending[0]) == {"relation", "status", "error", "updated_at", "batched", "batches_count",
                               "total_objects_count"}
    assert pending[0]["batched"] is False and pending[0]["batches_count"] == 0
    early = await call(
        client, "GET", "/groups/acme/export_relations/download", ROOT, params={"relation": "labels"}
    )
    assert early.status_code == 404
    clock.advance(0.1)
    done = {
        e["relation"]: e
        for e in (await call(client, "GET", "/groups/acme/export_relations/status", ROOT)).json()
    }
    assert done["labels"]["status"] == 1 and done["labels"]["error"] is None
    assert (done["boards"]["status"], done["boards"]["error"]) == (-1, "Boards could not be exported")
    labels = await call(
        client, "GET", "/groups/acme/export_relations/download", ROOT, params={"relation": "labels"}
    )
    lines = gzip.decompress(labels.content).decode().splitlines()
    assert {json.loads(line)["name"] for line in lines} == {"bug", "feature", "documentation"}
    failed = await call(
        client, "GET", "/groups/acme/export_relations/download", ROOT, params={"relation": "boards"}
    )
    assert failed.status_code == 404
    missing = await call(client, "GET", "/groups/acme/export_relations/download", ROOT)
    assert missing.json() == {"error": "relation is missing"}
    wrong = await call(
        client, "GET", "/groups/acme/export_relations/download", ROOT, params={"relation": "x"}
    )
    assert (wrong.status_code, wrong.json()) == (404, {"message": "404 Not found"})


async def test_relations_status_filter_and_batches(clock: ManualClock, client: httpx.AsyncClient) -> None:
    status = "/groups/acme/export_relations/status"
    none = await call(client, "GET", status, ROOT, params={"relation": "labels"})
    assert (none.status_code, none.json()) == (404, {"message": "Export not found"})
    started = await call(client, "POST", "/groups/acme/export_relations", ROOT, json={"batched": True})
    assert started.status_code == 202
    clock.advance(0.1)
    labels = (await call(client, "GET", status, ROOT, params={"relation": "labels"})).json()
    assert isinstance(labels, dict) and labels["relation"] == "labels" and labels["status"] == 1
    assert (labels["batched"], labels["batches_count"], labels["total_objects_count"]) == (True, 1, 3)
    assert labels["batches"] == [{"status": 1, "batch_number": 1, "objects_count": 3, "error": None,
                                  "updated_at": labels["updated_at"]}]
    unknown = await call(client, "GET", status, ROOT, params={"relation": "nope"})
    assert (unknown.status_code, unknown.json()) == (404, {"message": "Export not found"})
