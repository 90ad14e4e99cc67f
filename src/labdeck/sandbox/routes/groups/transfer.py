"""Group export and import, and the group relations export (GitLab's API docs; 202 answers and the 404
of a download that is not ready come from the design appendix). Every operation completes through the
store's scheduler after `async_delay` seconds, so clients poll.

The export is a real `.tar.gz` (`VERSION` and `tree/groups/<id>.json` with the group, its labels, badges,
members and subgroups); importing such an archive restores its labels and badges once the import completes.
`max_import_size` (MiB, 0 = unlimited) and the relations that should fail live in `TransferState`
(`store.areas["group_transfer"]`).
"""

from __future__ import annotations

import gzip
import io
import json
import tarfile
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from starlette.datastructures import UploadFile
from starlette.responses import Response
from starlette.routing import Route

from labdeck.sandbox.errors import SandboxError
from labdeck.sandbox.http import Ctx, endpoint, iso, json_response
from labdeck.sandbox.routes.groups import badges as group_badges
from labdeck.sandbox.routes.groups import labels as group_labels
from labdeck.sandbox.routes.groups.groups import add_group_record, find_group, require_level
from labdeck.sandbox.routes.groups.iterations import iteration_json
from labdeck.sandbox.routes.groups.iterations import state as iterations_state
from labdeck.sandbox.routes.groups.members import member_json
from labdeck.sandbox.shapes import group_json
from labdeck.sandbox.store import Group, Store

AREA = "group_transfer"
ACCEPTED = {"message": "202 Accepted"}
NOT_FOUND = {"message": "404 Not found"}
RELATIONS = ("self", "badges", "boards", "iterations", "labels", "members", "milestones",
             "namespace_settings")
STARTED, FINISHED, FAILED = 0, 1, -1


@dataclass
class RelationExport:
    relation: str
    status: int
    error: str | None
    updated_at: datetime
    payload: bytes = b""
    batched: bool = False
    objects_count: int = 0


@dataclass
class TransferState:
    archives: dict[int, bytes] = field(default_factory=dict)  # group id -> finished export
    relations: dict[int, dict[str, RelationExport]] = field(default_factory=dict)
    failing_relations: dict[str, str] = field(default_factory=dict)  # relation -> error message
    max_import_size: int = 0  # MiB; 0 means no limit
    imports: dict[int, str] = field(default_factory=dict)  # group id -> "started" | "finished" | "failed"


def state(store: Store) -> TransferState:
    return store.area(AREA, TransferState)


def seed(store: Store, ctx: Any) -> None:
    """No exports yet: just the area's state, so tests and options can configure it."""
    state(store)


# --- export ---------------------------------------------------------------------------------------------

def _tree(ctx: Ctx, group: Group) -> dict[str, Any]:
    store = ctx.store
    labels = [group_labels.label_json(lb, None, counts=False)
              for lb in group_labels.state(store).labels.values() if lb.group_id == group.id]
    badges = [{"name": b.name, "link_url": b.link_url, "image_url": b.image_url}
              for b in group_badges.state(store).badges.values() if b.group_id == group.id]
    members = [member_json(store, store.users[uid], m, ctx.base, admin=False)
               for uid, m in store.group_members.get(group.id, {}).items() if uid in store.users]
    children = [_tree(ctx, store.groups[g]) for g in store.children().get(group.id, [])]
    return {"group": group_json(group, ctx.base), "labels": labels, "badges": badges, "members": members,
            "subgroups": children}


def build_archive(tree: dict[str, Any], group_id: int) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, data in (("VERSION", b"0.2.4\n"),
                           (f"tree/groups/{group_id}.json", json.dumps(tree).encode())):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def read_archive(data: bytes) -> dict[str, Any] | None:
    """The group tree of an export archive, or None when it is not one."""
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as archive:
            for member in archive.getmembers():
                if member.name.startswith("tree/groups/") and member.name.endswith(".json"):
                    handle = archive.extractfile(member)
                    return json.loads(handle.read()) if handle else None
    except (tarfile.TarError, OSError, ValueError, EOFError):
        return None
    return None


async def start_export(ctx: Ctx) -> Any:
    group = find_group(ctx)
    require_level(ctx, group, 50)
    data = state(ctx.store)
    data.archives.pop(group.id, None)
    tree = _tree(ctx, group)

    def finish() -> None:
        data.archives[group.id] = build_archive(tree, group.id)

    ctx.store.scheduler.schedule(("group_export", group.id), finish)
    return json_response(ACCEPTED, 202)


async def download_export(ctx: Ctx) -> Any:
    group = find_group(ctx)
    require_level(ctx, group, 50)
    archive = state(ctx.store).archives.get(group.id)
    if archive is None:
        raise SandboxError(404, NOT_FOUND)
    stamp = ctx.store.now().strftime("%Y-%m-%d_%H-%M-%S")
    filename = f"{stamp}_{group.full_path.replace('/', '_')}_export.tar.gz"
    return Response(archive, media_type="application/gzip",
                    headers={"Content-Disposition": f'attachment; filename="{filename}"'})


# --- import ---------------------------------------------------------------------------------------------

async def start_import(ctx: Ctx) -> Any:
    user = ctx.require_user()
    p = ctx.params
    p.require("name", "path", "file")
    upload = p.get("file")
    if not isinstance(upload, UploadFile):
        raise SandboxError.invalid("file")
    content = await upload.read()
    data = state(ctx.store)
    if data.max_import_size and len(content) > data.max_import_size * 1024 * 1024:
        raise SandboxError(413, {"message": "413 Request Entity Too Large"})
    parent = None
    parent_id = p.int("parent_id")
    if parent_id is not None:
        parent = find_group(ctx, str(parent_id))
        require_level(ctx, parent, 40)
    name, path = p.str("name") or "", p.str("path") or ""
    full_path = f"{parent.full_path}/{path}" if parent else path
    if ctx.store.group_by_path(full_path) is not None:
        raise SandboxError.validation({"path": ["has already been taken"]})
    visibility = parent.visibility if parent else "private"  # private unless imported into a parent
    group = add_group_record(ctx.store, name, path, parent, visibility, "", user)
    data.imports[group.id] = "started"
    tree = read_archive(content)

    def finish() -> None:
        if tree is None:
            data.imports[group.id] = "failed"
            raise ValueError("the file is not a group export archive")
        for label in tree.get("labels", []):
            group_labels.add_label(ctx.store, group, str(label["name"]), str(label["color"]),
                                   label.get("description"))
        for badge in tree.get("badges", []):
            group_badges.add_badge(ctx.store, group.id, str(badge.get("name") or ""), str(badge["link_url"]),
                                   str(badge["image_url"]))
        data.imports[group.id] = "finished"
        ctx.store.touch()

    ctx.store.scheduler.schedule(("group_import", group.id), finish)
    return json_response(ACCEPTED, 202)


# --- relations export -----------------------------------------------------------------------------------

def _relation_records(ctx: Ctx, group: Group, relation: str) -> list[dict[str, Any]]:
    tree = _tree(ctx, group)
    if relation in ("labels", "badges", "members"):
        return list(tree[relation])
    if relation == "iterations":
        return [iteration_json(ctx, it) for it in iterations_state(ctx.store).iterations.values()
                if it.group_id == group.id]
    if relation == "self":
        return [tree["group"]]
    return []


async def start_relations_export(ctx: Ctx) -> Any:
    group = find_group(ctx)
    require_level(ctx, group, 50)
    data = state(ctx.store)
    now = ctx.store.now()
    batched = bool(ctx.params.bool("batched", False))
    records = {r: _relation_records(ctx, group, r) for r in RELATIONS}
    entries = {r: RelationExport(r, STARTED, None, now, batched=batched, objects_count=len(records[r]))
               for r in RELATIONS}
    data.relations[group.id] = entries
    payloads = {r: gzip.compress(b"".join(json.dumps(rec).encode() + b"\n" for rec in records[r]))
                for r in RELATIONS}

    def finish() -> None:
        done = ctx.store.now()
        for relation, entry in entries.items():
            failure = data.failing_relations.get(relation)
            entry.status, entry.error, entry.updated_at = (FAILED, failure, done) if failure else (
                FINISHED, None, done)
            entry.payload = b"" if failure else payloads[relation]

    ctx.store.scheduler.schedule(("relations_export", group.id), finish)
    return json_response(ACCEPTED, 202)


def status_json(entry: RelationExport) -> dict[str, Any]:
    """GitLab's `Entities::BulkImports::ExportStatus`: `batches` only for a batched export (one batch
    per relation in the sandbox)."""
    out: dict[str, Any] = {"relation": entry.relation, "status": entry.status, "error": entry.error,
                           "updated_at": iso(entry.updated_at), "batched": entry.batched,
                           "batches_count": 1 if entry.batched else 0,
                           "total_objects_count": entry.objects_count}
    if entry.batched:
        out["batches"] = [{"status": entry.status, "batch_number": 1, "objects_count": entry.objects_count,
                           "error": entry.error, "updated_at": iso(entry.updated_at)}]
    return out


async def relations_status(ctx: Ctx) -> Any:
    """Every relation's status, or with `relation` that one's (404 `Export not found` when there is no
    such export)."""
    group = find_group(ctx)
    require_level(ctx, group, 50)
    entries = state(ctx.store).relations.get(group.id, {})
    relation = ctx.params.str("relation")
    if relation:
        entry = entries.get(relation)
        if entry is None:
            raise SandboxError(404, {"message": "Export not found"})
        return status_json(entry)
    return [status_json(e) for e in entries.values()]


async def download_relation(ctx: Ctx) -> Any:
    group = find_group(ctx)
    require_level(ctx, group, 50)
    ctx.params.require("relation")
    relation = ctx.params.str("relation") or ""  # an unknown relation has no export: 404 as GitLab answers
    entry = state(ctx.store).relations.get(group.id, {}).get(relation)
    if entry is None or entry.status != FINISHED:
        raise SandboxError(404, NOT_FOUND)
    return Response(entry.payload, media_type="application/gzip",
                    headers={"Content-Disposition": f'attachment; filename="{relation}.ndjson.gz"'})


routes: list[Route] = [
    Route("/groups/import", endpoint(start_import), methods=["POST"]),
    Route("/groups/{id}/export", endpoint(start_export), methods=["POST"]),
    Route("/groups/{id}/export/download", endpoint(download_export), methods=["GET"]),
    Route("/groups/{id}/export_relations", endpoint(start_relations_export), methods=["POST"]),
    Route("/groups/{id}/export_relations/status", endpoint(relations_status), methods=["GET"]),
    Route("/groups/{id}/export_relations/download", endpoint(download_relation), methods=["GET"]),
]
