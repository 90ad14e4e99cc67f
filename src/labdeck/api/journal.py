"""The undo journal: every change labdeck makes on an instance, with what was there before, in a file of its
own (JSON lines, mode 0600 from the first byte, one file per instance), and the undo of an entry.

`ApiClient.request` hands every mutating request to `Journal.around`, which reads the target first (the
rules in `labdeck.domain.journal_rules` say what to read and how GitLab undoes the operation), sends the
request and appends an entry with the result. The file never holds a token (paths are the request log's,
already redacted) nor a CI variable's value: the value of a deleted, unmasked variable is kept in memory for
this run only, so its deletion can be undone until labdeck closes. `UndoService.undo` refuses, with the
reason, when there is no inverse or when the target changed since.
"""

from __future__ import annotations

import contextvars
import json
import math
import os
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import httpx

from labdeck.api.errors import ApiError, LabdeckError, NotFound
from labdeck.api.private_files import open_private, private_folder
from labdeck.domain import catalogue as ep
from labdeck.domain.digits import is_digits
from labdeck.domain.endpoints import RawPath
from labdeck.domain.journal_rules import (
    VALUE_KEPT_IN_MEMORY,
    Inverse,
    Operation,
    changed_since,
    classify,
    describe_target,
    inverse_of,
    why_no_inverse,
)
from labdeck.domain.journal_words import change_phrase
from labdeck.domain.text import sanitize

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
# The job a request belongs to, as (key, title): set by the TUI's job centre around each job.
current_job: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("labdeck_job",
                                                                                     default=None)
_undoing: contextvars.ContextVar[str | None] = contextvars.ContextVar("labdeck_undoing", default=None)
Send = Callable[..., Awaitable[httpx.Response]]


class UndoRefused(LabdeckError):
    """An undo that must not run; the message says why."""


class JournalUnavailable(LabdeckError):
    """The journal file cannot be written: a change is refused before it is sent."""


@dataclass
class JournalEntry:
    id: str
    at: float
    operation: str
    kind: str
    target: str
    method: str
    path: str
    result: str = "pending"
    ok: bool = False
    job: str | None = None
    job_title: str | None = None
    undoes: str | None = None
    no_undo: str | None = None
    before: dict[str, Any] | None = None
    inverse: dict[str, Any] | None = None
    after: dict[str, Any] | None = None  # what the server answered (issue, member level, project), summarised

    @classmethod
    def from_json(cls, data: Any) -> JournalEntry:
        """An entry read back from the journal; `ValueError` naming the field when the line is damaged
        (not an object, a field missing or of the wrong type), so a damaged line is skipped, not shown."""
        if not isinstance(data, Mapping):
            raise ValueError(f"not an object but {type(data).__name__}")
        known = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        for name, kinds in _FIELD_TYPES.items():
            if name not in known:
                if name in _REQUIRED:
                    raise ValueError(f"{name} is missing")
                continue
            value = known[name]
            if not isinstance(value, kinds) or (isinstance(value, bool) and bool not in kinds):
                raise ValueError(f"{name} is {type(value).__name__}")
        inverse = known.get("inverse")
        if inverse is not None and not (isinstance(inverse.get("method"), str)
                                        and isinstance(inverse.get("path"), str)
                                        and isinstance(inverse.get("body") or {}, Mapping)
                                        and isinstance(inverse.get("check_path"), str | None)):
            raise ValueError("inverse is damaged")
        fields: dict[str, Any] = {k: sanitize(v) if isinstance(v, str) else v for k, v in known.items()}
        return cls(**fields)


_NONE = type(None)
# What each field of a journal line must be (a bool is never a number here: `"at": true` is damage).
_FIELD_TYPES: dict[str, tuple[type, ...]] = {
    "id": (str,), "at": (int, float), "operation": (str,), "kind": (str,), "target": (str,), "method": (str,),
    "path": (str,), "result": (str,), "ok": (bool,), "job": (str, _NONE), "job_title": (str, _NONE),
    "undoes": (str, _NONE), "no_undo": (str, _NONE), "before": (dict, _NONE), "inverse": (dict, _NONE),
    "after": (dict, _NONE),
}
_REQUIRED = frozenset({"id", "at", "operation", "kind", "target", "method", "path"})


# Fields of a snapshot worth keeping (never a variable's value, never anything secret).
_KEEP = ("id", "username", "name", "state", "access_level", "expires_at", "color", "description", "priority",
         "link_url", "image_url", "message", "target", "commit", "key", "variable_type", "protected",
         "masked", "hidden", "masked_and_hidden", "raw", "environment_scope", "labels", "assignees",
         "milestone", "iid", "title", "container_expiration_policy", "archived", "deploy_access_levels",
         "approval_rules", "required_approval_count")
# Changes whose answer (the target after it) the undo needs
_ANSWER_KEPT = frozenset({"issue.update", "member.level", "project.update", "protected_environment.update"})


def _summary(before: Mapping[str, Any] | None) -> dict[str, Any] | None:
    if before is None:
        return None
    kept = {k: before[k] for k in _KEEP if k in before}
    if isinstance(kept.get("commit"), Mapping):
        kept["commit"] = {"id": kept["commit"].get("id")}
    if isinstance(kept.get("assignees"), list):
        kept["assignees"] = [{"id": a.get("id"), "username": a.get("username")}
                             for a in kept["assignees"] if isinstance(a, Mapping)]
    if isinstance(kept.get("milestone"), Mapping):
        kept["milestone"] = {"id": kept["milestone"].get("id"), "title": kept["milestone"].get("title")}
    return kept


def open_journal(path: Path) -> int:
    """Open `path` for appending: created 0600 (its folder 0700) from the first byte, never through a
    symbolic link (`UnsafeFile`), an older, looser file or folder tightened (`labdeck.api.private_files`)."""
    private_folder(path.parent, own=True)
    return open_private(path, os.O_WRONLY | os.O_APPEND)


@dataclass
class Journal:
    """The journal of one instance. `path=None` keeps entries in memory only (tests, no state folder)."""

    path: Path | None = None
    clock: Callable[[], float] = time.time
    _entries: list[JournalEntry] = field(default_factory=list)
    _values: dict[str, str] = field(default_factory=dict, repr=False)  # entry id -> variable value
    _loaded: bool = False
    _listeners: list[Callable[[JournalEntry], object]] = field(default_factory=list)
    _owner_paths: dict[tuple[str, str], str] = field(default_factory=dict)  # ("groups", "61") -> "acme"
    _known: dict[tuple[str, str], str] = field(default_factory=dict)  # ("user", "17") -> "bob", per run
    damaged: list[int] = field(default_factory=list)  # line numbers (from 1) skipped as damaged, per read

    def entries(self) -> list[JournalEntry]:
        """Every entry, oldest first (the file is read once; later entries are kept as they are added)."""
        if not self._loaded:
            self._loaded = True
            self._entries = self._read() + self._entries
        return list(self._entries)

    def _read(self) -> list[JournalEntry]:
        if self.path is None or not self.path.exists():
            return []
        found = []
        self.damaged = []
        lines = self.path.read_text(encoding="utf-8", errors="replace").splitlines()
        for number, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                entry = JournalEntry.from_json(json.loads(line))
                if not math.isfinite(entry.at):
                    raise ValueError("at is not a time")
                datetime.fromtimestamp(entry.at)  # raises for a time no screen can show
            except (ValueError, TypeError, OverflowError, OSError, RecursionError):
                self.damaged.append(number)  # a torn, foreign or damaged line never hides the rest
                continue
            found.append(entry)
        return found

    def get(self, entry_id: str) -> JournalEntry | None:
        return next((e for e in self.entries() if e.id == entry_id), None)

    def undone(self) -> dict[str, JournalEntry]:
        """Entries that were undone, by id, with the entry of their undo (only a successful one counts)."""
        return {e.undoes: e for e in self.entries() if e.undoes and e.ok}

    def subscribe(self, listener: Callable[[JournalEntry], object]) -> None:
        self._listeners.append(listener)

    def unsubscribe(self, listener: Callable[[JournalEntry], object]) -> None:
        """Stop calling `listener` (a screen that unmounts); unknown listeners are ignored."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def append(self, entry: JournalEntry) -> None:
        self.entries()
        self._entries.append(entry)
        if self.path is not None:
            line = json.dumps(asdict(entry), ensure_ascii=False, default=str) + "\n"
            descriptor = open_journal(self.path)
            try:
                os.write(descriptor, line.encode("utf-8"))
            finally:
                os.close(descriptor)
        for listener in list(self._listeners):
            listener(entry)

    def value_for(self, entry: JournalEntry) -> str | None:
        """The in-memory value of a deleted variable (None after a restart, or for a secret one)."""
        return self._values.get(entry.id)

    # -- recording ------------------------------------------------------------------------------------
    async def around(self, client: Any, method: str, path: str, kwargs: dict[str, Any],
                     send: Send) -> httpx.Response:
        """Send a mutating request through `send`, journalled with what was there before. A journal file
        that cannot be written (a symbolic link at its path, a folder of another user's) refuses the change
        before anything is sent (`JournalUnavailable`): no change is made that could not be undone."""
        self._check_writable()
        relative = client.address.relative_path(path)
        sent = _sent(kwargs)
        op = classify(method, relative, sent)
        before = await self._snapshot(client, op, kwargs.get("params"))
        # a registry repository is named before the change takes it away
        early = await self._names(client, [r for r in op.reads(before) if r[0] == "repository"])
        job = current_job.get()
        entry = JournalEntry(
            id=uuid.uuid4().hex[:12], at=self.clock(), operation=op.label, kind=op.kind,
            target=describe_target(op, before, sent=sent, names=early), method=method.upper(),
            path=relative, job=job[0] if job else None, job_title=job[1] if job else None,
            undoes=_undoing.get(), before=_summary(before))
        try:
            response = await send(method, path, **kwargs)
        except ApiError as error:
            entry.target = await self._target(client, op, before, None, sent)
            self._finish(entry, op, before, None, kwargs, f"refused: {error.status} {error.message}", False)
            raise
        except BaseException as error:  # the answer was lost: the server may have applied it
            reason = "cancelled" if not isinstance(error, Exception) else str(error)
            self._finish(entry, op, before, None, kwargs,
                         f"unknown (the server may have applied it): {reason}", False)
            raise
        kept = op.kind in _ANSWER_KEPT  # what the answer is kept for
        answer = _body(response) if kept or op.names_from_answer else None
        entry.target = await self._target(client, op, before, answer if isinstance(answer, dict) else None,
                                          sent)
        after = answer if kept else None
        self._finish(entry, op, before, after, kwargs, "done", True)
        return response

    async def _target(self, client: Any, op: Operation, before: Mapping[str, Any] | None,
                      answer: Mapping[str, Any] | None, sent: Mapping[str, Any]) -> str:
        """The target by path and name, recorded when the change is made: the owner's path and the names the
        words need (a user, a registry repository, a project) read once per run and kept."""
        owner = await self._owner_path(client, op, before, answer)
        names = await self._names(client, op.reads(before, answer))
        return describe_target(op, before, owner, answer=answer, sent=sent, names=names)

    async def _names(self, client: Any, wanted: list[tuple[str, str]]) -> dict[tuple[str, str], str]:
        """`("user", "17") -> "bob"`, `("repository", "2") -> "acme/app/builds"`, `("project", "90") ->
        "acme/upstream"`: each read once per run (a name that cannot be read is left out)."""
        for key in wanted:
            if key in self._known or not is_digits(key[1]):
                continue
            kind, ident = key
            endpoint, name = {"user": (ep.USER, "username"), "repository": (ep.REGISTRY_REPOSITORY, "path"),
                              "project": (ep.PROJECT, "path_with_namespace")}[kind]
            try:
                found = await client.get_json(endpoint.path(int(ident)))
            except (LabdeckError, ValueError):
                continue
            value = found.get(name) if isinstance(found, dict) else None
            if isinstance(value, str) and value:
                self._known[key] = sanitize(value)
        return {key: self._known[key] for key in wanted if key in self._known}

    async def _owner_path(self, client: Any, op: Operation, before: Mapping[str, Any] | None,
                          answer: Mapping[str, Any] | None = None) -> str | None:
        """The path of the group or project `op` names by id (`acme` for `groups/61`): one read per owner
        and run, after the change was sent; None when it is not needed or cannot be read."""
        if op.owner is None or not is_digits(op.owner[1]) or not op.uses_owner(before, answer):
            return None
        scope, ident = op.owner
        key = (scope, ident)
        if key not in self._owner_paths:
            try:
                endpoint = ep.GROUP if scope == "groups" else ep.PROJECT
                found = await client.get_json(endpoint.path(int(ident)))
            except (LabdeckError, ValueError):
                return None
            name = found.get("full_path" if scope == "groups" else "path_with_namespace") \
                if isinstance(found, dict) else None
            if not isinstance(name, str) or not name:
                return None
            self._owner_paths[key] = sanitize(name)
        return self._owner_paths[key]

    def _check_writable(self) -> None:
        if self.path is None:
            return
        try:
            os.close(open_journal(self.path))
        except OSError as error:
            raise JournalUnavailable(f"the undo journal cannot be written: {error.strerror or error}; "
                                     "nothing was sent") from None

    async def _snapshot(self, client: Any, op: Operation, params: Any) -> dict[str, Any] | None:
        if op.snapshot is None or (op.no_inverse is not None and not op.kind.startswith("user.")):
            return None
        scoped = params if op.kind == "variable.delete" else None  # a variable's environment_scope filter
        try:
            found = await client.get_json(RawPath(op.snapshot), params=scoped)  # stored: not re-checked
        except (LabdeckError, ValueError):
            return None
        return found if isinstance(found, dict) else None

    def _finish(self, entry: JournalEntry, op: Operation, before: dict[str, Any] | None,
                after: Any, kwargs: Mapping[str, Any], result: str, ok: bool) -> None:
        entry.result, entry.ok = result, ok
        entry.after = _summary(after) if isinstance(after, dict) else None
        if ok:
            inverse = inverse_of(op, entry.path, before, after if isinstance(after, dict) else None,
                                 _sent(kwargs))
            entry.no_undo = None if inverse is not None else (why_no_inverse(op, before) or "nothing to undo")
            if inverse is not None:
                entry.inverse = inverse.to_json()
                if inverse.body.get("value") == VALUE_KEPT_IN_MEMORY and before is not None:
                    self._values[entry.id] = str(before.get("value", ""))
        else:
            entry.no_undo = "it did not complete"
        self.append(entry)


def _sent(kwargs: Mapping[str, Any]) -> Mapping[str, Any]:
    """What a request sends (its JSON body, form fields or query), for its words; never stored."""
    sent = kwargs.get("json") or kwargs.get("data") or kwargs.get("params") or {}
    return sent if isinstance(sent, Mapping) else {}


def _body(response: httpx.Response) -> Any:
    try:
        return response.json() if response.content.strip() else None
    except ValueError:
        return None


class UndoService:
    """Undoes journal entries, one at a time; each undo is itself journalled (`undoes` names the entry)."""

    def __init__(self, client: Any, journal: Journal) -> None:
        self.client = client
        self.journal = journal

    def refusal(self, entry: JournalEntry, undone: Mapping[str, JournalEntry] | None = None) -> str | None:
        """Why `entry` cannot be undone, known without a request (None when it may be). `undone`: the
        journal's `undone()`, when the caller asks about many entries at once."""
        if entry.undoes:
            return "it is itself an undo"
        if not entry.ok:
            return entry.no_undo or "it did not complete"
        if entry.id in (undone if undone is not None else self.journal.undone()):
            return "it was undone already"
        if entry.inverse is None:
            return entry.no_undo or "labdeck knows no inverse for it"
        inverse = Inverse.from_json(entry.inverse)
        if inverse.body.get("value") == VALUE_KEPT_IN_MEMORY and self.journal.value_for(entry) is None:
            return "the variable's value was not kept after labdeck closed"
        return None

    async def undo(self, entry: JournalEntry) -> str:
        """Send the inverse of `entry` after checking that its target did not change since."""
        reason = self.refusal(entry)
        if reason is not None:
            raise UndoRefused(f"cannot undo {change_phrase(entry.operation, entry.target)}: {reason}")
        inverse = Inverse.from_json(entry.inverse or {})
        if inverse.check_path is not None:
            scope = inverse.body.get("environment_scope") if "key" in inverse.body else None
            try:  # a variable is looked up in its own scope: another scope may share the key
                current = await self.client.get_json(
                    RawPath(inverse.check_path), {"filter": {"environment_scope": scope}} if scope else None)
            except NotFound:
                current = None
            changed = changed_since(inverse, current if isinstance(current, dict) else None)
            if changed is not None:
                raise UndoRefused(f"not undone: {entry.target} changed since ({changed})")
        body = dict(inverse.body)
        if body.get("value") == VALUE_KEPT_IN_MEMORY:
            body["value"] = self.journal.value_for(entry)
        token = _undoing.set(entry.id)
        try:
            await self.client.request(inverse.method, RawPath(inverse.path), json=body or None)
        finally:
            _undoing.reset(token)
        return f"undone: {change_phrase(entry.operation, entry.target)}"

    def job_entries(self, job: str) -> list[JournalEntry]:
        """The entries of one bulk job, newest first (undo runs in reverse order)."""
        return [e for e in reversed(self.journal.entries()) if e.job == job and not e.undoes]
