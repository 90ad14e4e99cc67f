"""How the undo journal treats each kind of change: what the change is called, what to read before it, the
request GitLab undoes it with, and why it cannot be undone when it cannot.

A rule is an object held by the endpoints it applies to (`Endpoint.undo`, declared in
`labdeck.domain.catalogue` beside the endpoint, together with the endpoints the rule reaches: where a
deleted item is created again, where it is read back). The journal asks the rule its endpoint holds
(`journal_rules.classify`, `inverse_of`); no name is resolved to a rule. A new kind of undo is a class
here and an `undo=` on its endpoints.

Pure rules over paths (relative to `/api/v4`, as the request log shows them) and plain dicts (the JSON
GitLab answers); the I/O lives in `labdeck.api.journal`. Nothing here holds a CI variable's value: the
inverse of a variable's deletion names the value as `VALUE_KEPT_IN_MEMORY`, and the journal fills it from
memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from labdeck.domain.change_names import Naming, names_owner, names_to_read
from labdeck.domain.cleanup_policy import EDITABLE
from labdeck.domain.endpoints import Endpoint

VALUE_KEPT_IN_MEMORY = "<kept in memory>"
ABSENT = "absent"  # an undo's check: the target must not exist (it is recreated)

# User states after each moderation operation, and the operation that undoes it.
USER_OPS: dict[str, tuple[str, str]] = {  # op -> (state after it, inverse op)
    "ban": ("banned", "unban"), "unban": ("active", "ban"),
    "block": ("blocked", "unblock"), "unblock": ("active", "block"),
    "deactivate": ("deactivated", "activate"), "activate": ("active", "deactivate"),
}
NO_INVERSE_USER_OPS = {
    "reject": "a rejected sign-up is deleted by GitLab",
    "approve": "GitLab cannot return a user to pending approval",
}
REGISTRY_NO_INVERSE = "registry tags cannot be recreated through the API (the image is pushed again)"
SECRET_VARIABLE = "the value of a masked or hidden variable is never kept"
POLICY = "container_expiration_policy"
POLICY_ATTRIBUTES = "container_expiration_policy_attributes"
ARCHIVE_OPS = ("project.archive", "project.unarchive")


@dataclass(frozen=True)
class Operation:
    """One change as the journal names it. `snapshot` is the path to read before it (None: nothing).
    `owner` is the group or project it belongs to as the request named it (`("groups", "61")`), so the
    target can name the owner's path. `rule` is the endpoint's undo rule and `values` the request's decoded
    segment values (None and empty for a change the catalogue does not know). `naming` says the target in
    words (`domain.change_names`), over `values`; `label` and `target` are that said with what the request
    alone tells (`tag v1 of project 58`), set by `journal_rules.classify`."""

    kind: str
    label: str = ""
    target: str = ""
    snapshot: str | None = None
    no_inverse: str | None = None
    groups: tuple[str, ...] = ()
    owner: tuple[str, str] | None = None
    rule: UndoRule | None = field(default=None, compare=False, repr=False)
    values: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    naming: Naming | None = field(default=None, compare=False, repr=False)

    def reads(self, before: Mapping[str, Any] | None = None,
              answer: Mapping[str, Any] | None = None) -> list[tuple[str, str]]:
        """The names the target needs read (`("user", "17")`, `("repository", "2")`) that what was read
        before the change and its answer do not give."""
        return names_to_read(self.naming, dict(self.values), before, answer) if self.naming else []

    @property
    def names_from_answer(self) -> bool:
        """Whether the change's answer may name the target (a created item, a member, an issue)."""
        template = self.naming.target + self.naming.it_else if self.naming is not None else ""
        return any(word in template for word in ("{it}", "{user}", "{issue}"))

    def uses_owner(self, before: Mapping[str, Any] | None = None,
                   answer: Mapping[str, Any] | None = None) -> bool:
        """Whether the target names the owner's path (an issue's own reference names its project)."""
        return self.naming is not None and names_owner(self.naming, before, answer)


@dataclass(frozen=True)
class Inverse:
    """The request that undoes an entry, and what must hold first: `check_path` read now must be absent
    (`expect == ABSENT`) or match every field of `expect`."""

    method: str
    path: str
    body: dict[str, Any] = field(default_factory=dict)
    check_path: str | None = None
    expect: Mapping[str, Any] | str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"method": self.method, "path": self.path, "body": self.body, "check_path": self.check_path,
                "expect": self.expect}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Inverse:
        return cls(str(data["method"]), str(data["path"]), dict(data.get("body") or {}),
                   data.get("check_path"), data.get("expect"))


@dataclass(frozen=True)
class Change:
    """A request the catalogue knows, as a rule reads it: its method, its path (relative, no query, no
    leading slash), its endpoint and the endpoint's decoded segment values."""

    method: str
    path: str
    endpoint: Endpoint
    values: Mapping[str, str]

    @property
    def scope(self) -> str:
        """The first fixed segment of the template: `groups`, `projects`, `users`, `admin`."""
        return self._literal[0]

    @property
    def last(self) -> str:
        """The last fixed segment of the template (a moderation operation, `repositories`, `tags`)."""
        return self._literal[-1]

    @property
    def _literal(self) -> list[str]:
        return [part for part in self.endpoint.template.split("/") if part and not part.startswith("{")]

    @property
    def ident(self) -> str:
        """The request's owner or user: a group, a project or a user id, as the request named it."""
        return self.values.get("group") or self.values.get("project") or self.values.get("user_id") or ""

    @property
    def owner(self) -> tuple[str, str] | None:
        return (self.scope, self.ident) if self.scope in ("groups", "projects") else None



def _segments_of(endpoint: Endpoint, values: Mapping[str, str]) -> dict[str, str]:
    """The values of `endpoint`'s segments among `values` (a collection's owner among an item's values)."""
    return {name: values[name] for name, _ in endpoint.segments}


def _present(body: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if v is not None}


class UndoRule:
    """How the journal treats a change through the endpoints that hold this rule. `operation` names the
    change (None: the rule does not know this request, journalled with no inverse); `inverse` is the
    request that undoes it given what was read before it and answered after it (None: nothing to undo);
    `why_not` says why a change that ran cannot be undone, beyond what `Operation.no_inverse` says."""

    def operation(self, change: Change) -> Operation | None:
        raise NotImplementedError

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        return None

    def why_not(self, before: Mapping[str, Any]) -> str | None:
        return None


class UserModeration(UndoRule):
    """`POST /users/:id/<op>`: undone by the opposite operation (ban by unban...), checked against the
    state the operation left; `reject` and `approve` cannot be undone. `read` is one user,
    `operations` every moderation endpoint by operation."""

    def __init__(self, read: Endpoint, operations: Mapping[str, Endpoint]) -> None:
        self.read = read
        self.operations = operations

    def operation(self, change: Change) -> Operation | None:
        op, user = change.last, change.values["user_id"]
        snapshot = self.read.path(user).lstrip("/")
        if op in USER_OPS:
            return Operation(f"user.{op}", snapshot=snapshot)
        if op in NO_INVERSE_USER_OPS:
            return Operation(f"user.{op}", snapshot=snapshot, no_inverse=NO_INVERSE_USER_OPS[op])
        return None

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        state, inverse = USER_OPS[op.kind.split(".", 1)[1]]
        user = op.values["user_id"]  # digits: the catalogue matched it
        return Inverse("POST", self.operations[inverse].path(user).lstrip("/"),
                       check_path=self.read.path(user).lstrip("/"), expect={"state": state})


class MemberChange(UndoRule):
    """A member's removal (undone by adding them again with their level and expiry, in `add`) or level
    change (undone by the old level, checked against the new one)."""

    def __init__(self, add: Endpoint) -> None:
        self.add = add

    def operation(self, change: Change) -> Operation:
        removed = change.method == "DELETE"
        return Operation("member.remove" if removed else "member.level", snapshot=change.path,
                         groups=("members",), owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        if op.kind == "member.level":
            return Inverse("PUT", path, {"access_level": before.get("access_level"),
                                         "expires_at": before.get("expires_at") or ""},
                           check_path=path, expect={"access_level": (after or {}).get("access_level")})
        body = {"user_id": before.get("id"), "access_level": before.get("access_level"),
                "expires_at": before.get("expires_at")}
        return Inverse("POST", self.add.path(**_segments_of(self.add, op.values)).lstrip("/"), _present(body),
                       check_path=path, expect=ABSENT)


class LabelDeletion(UndoRule):
    """A group label's deletion: created again (`create`) with its colour, description and priority,
    when no label of its name exists (`read`)."""

    def __init__(self, create: Endpoint, read: Endpoint) -> None:
        self.create = create
        self.read = read

    def operation(self, change: Change) -> Operation:
        return Operation("label.delete", snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        owner = _segments_of(self.create, op.values)
        body = {k: before.get(k) for k in ("name", "color", "description", "priority")}
        check = self.read.path(**owner, label=before.get("name", "")).lstrip("/")
        return Inverse("POST", self.create.path(**owner).lstrip("/"), _present(body), check_path=check,
                       expect=ABSENT)


class BadgeDeletion(UndoRule):
    """A group badge's deletion: created again (`create`) with its link, image and name."""

    def __init__(self, create: Endpoint) -> None:
        self.create = create

    def operation(self, change: Change) -> Operation:
        return Operation("badge.delete", snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        body = {k: before.get(k) for k in ("link_url", "image_url", "name")}
        return Inverse("POST", self.create.path(**_segments_of(self.create, op.values)).lstrip("/"),
                       _present(body))


class TagDeletion(UndoRule):
    """A repository tag's deletion: created again (`create`) on its commit, with its message."""

    def __init__(self, create: Endpoint) -> None:
        self.create = create

    def operation(self, change: Change) -> Operation:
        return Operation("tag.delete", snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        raw_commit = before.get("commit")
        commit = raw_commit if isinstance(raw_commit, Mapping) else {}
        body = {"tag_name": before.get("name"), "ref": commit.get("id") or before.get("target"),
                "message": before.get("message") or None}
        return Inverse("POST", self.create.path(**_segments_of(self.create, op.values)).lstrip("/"),
                       {k: v for k, v in body.items() if v}, check_path=path, expect=ABSENT)


def _secret(variable: Mapping[str, Any]) -> bool:
    return bool(variable.get("masked") or variable.get("hidden") or variable.get("masked_and_hidden"))


class VariableDeletion(UndoRule):
    """A CI variable's deletion (a group's, a project's or the instance's): created again (`create`) with
    its settings and the value kept in memory for this run; a masked or hidden one never."""

    def __init__(self, create: Endpoint) -> None:
        self.create = create

    def operation(self, change: Change) -> Operation:
        return Operation("variable.delete", snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        if _secret(before):
            return None
        keys = ("key", "variable_type", "protected", "masked", "raw", "environment_scope", "description")
        body = {k: before.get(k) for k in keys if before.get(k) is not None}
        body["value"] = VALUE_KEPT_IN_MEMORY
        return Inverse("POST", self.create.path(**_segments_of(self.create, op.values)).lstrip("/"), body,
                       check_path=path, expect=ABSENT)

    def why_not(self, before: Mapping[str, Any]) -> str | None:
        return SECRET_VARIABLE if _secret(before) else None


def _ids(people: Any) -> list[int]:
    return sorted(int(p["id"]) for p in people or [] if isinstance(p, Mapping) and "id" in p)


def milestone_of(issue: Mapping[str, Any]) -> int:
    milestone = issue.get("milestone")
    return int(milestone["id"]) if isinstance(milestone, Mapping) and "id" in milestone else 0


def issue_state(issue: Mapping[str, Any]) -> dict[str, Any]:
    """The undoable fields of an issue, comparable across reads."""
    raw = issue.get("labels") or []
    labels = sorted(str(x.get("name")) if isinstance(x, Mapping) else str(x) for x in raw)
    return {"state": issue.get("state"), "labels": labels,
            "assignee_ids": _ids(issue.get("assignees")), "milestone_id": milestone_of(issue)}


class IssueUpdate(UndoRule):
    """An issue's update: what it changed of state, labels, assignees and milestone is set back, checked
    against what the update left."""

    def operation(self, change: Change) -> Operation:
        return Operation("issue.update", snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        old, new = issue_state(before), issue_state(after or before)
        body: dict[str, Any] = {}
        expect: dict[str, Any] = {}
        if "state_event" in sent and old["state"] != new["state"]:
            body["state_event"] = "reopen" if old["state"] == "opened" else "close"
            expect["state"] = new["state"]
        if {"labels", "add_labels", "remove_labels"} & sent.keys() and old["labels"] != new["labels"]:
            body["labels"] = ",".join(old["labels"])
            expect["labels"] = new["labels"]
        if {"assignee_ids", "assignee_id"} & sent.keys() and old["assignee_ids"] != new["assignee_ids"]:
            body["assignee_ids"] = old["assignee_ids"] or [0]
            expect["assignee_ids"] = new["assignee_ids"]
        if "milestone_id" in sent and old["milestone_id"] != new["milestone_id"]:
            body["milestone_id"] = old["milestone_id"]
            expect["milestone_id"] = new["milestone_id"]
        if not body:
            return None
        return Inverse("PUT", path, body, check_path=path, expect=expect)


def policy_settings(project: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The editable values of a project's cleanup policy (`next_run_at` aside: every save moves it)."""
    policy = project.get(POLICY) if project is not None else None
    return {k: policy.get(k) for k in EDITABLE} if isinstance(policy, Mapping) else None


class ProjectUpdate(UndoRule):
    """A project's update: only a cleanup policy change is undone, by sending the old policy back (GitLab
    restarts its interval)."""

    def operation(self, change: Change) -> Operation:
        return Operation("project.update", snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        old, new = policy_settings(before), policy_settings(after)
        if POLICY_ATTRIBUTES not in sent or old is None or new is None or old == new:
            return None
        return Inverse("PUT", path, {POLICY_ATTRIBUTES: old}, check_path=path, expect={POLICY: new})


class ProjectArchiving(UndoRule):
    """Archiving a project, or unarchiving it (`POST /projects/:id/archive`, `/unarchive`): each undone by the
    other (`operations`, by the last segment), while the project (`read`) is still as the change left it; a
    change that changed nothing (GitLab answers 201 all the same) has nothing to undo."""

    def __init__(self, read: Endpoint, operations: Mapping[str, Endpoint]) -> None:
        self.read = read
        self.operations = operations

    def operation(self, change: Change) -> Operation:
        snapshot = self.read.path(change.values["project"]).lstrip("/")
        return Operation(f"project.{change.last}", snapshot=snapshot, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        archived = op.kind == "project.archive"
        if before.get("archived") is archived:
            return None
        project = op.values["project"]
        undo = self.operations["unarchive" if archived else "archive"]
        return Inverse("POST", undo.path(project).lstrip("/"), check_path=self.read.path(project).lstrip("/"),
                       expect={"archived": archived})


class RegistryDeletion(UndoRule):
    """A registry repository's or tags' deletion: GitLab cannot recreate them (the image is pushed
    again), so the journal says so before it runs."""

    def operation(self, change: Change) -> Operation:
        return Operation("registry.delete", no_inverse=REGISTRY_NO_INVERSE, owner=change.owner)


ISSUE_UNDO = IssueUpdate()
PROJECT_UNDO = ProjectUpdate()
REGISTRY_UNDO = RegistryDeletion()
