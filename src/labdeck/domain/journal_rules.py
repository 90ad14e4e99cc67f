"""What the undo journal knows about a change: which operation a request is, what to read before it, how
GitLab undoes it, and whether an undo is still safe.

Pure rules over paths (relative to `/api/v4`, as the request log shows them) and plain dicts (the JSON GitLab
answers); the I/O lives in `labdeck.api.journal`. An operation GitLab cannot undo says why (`no_inverse`), so
that a confirmation can say so before it runs. Nothing here holds a CI variable's value: the inverse of a
variable's deletion names the value as `VALUE_KEPT_IN_MEMORY`, and the journal fills it from memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from labdeck.domain import catalogue as ep
from labdeck.domain.catalogue import endpoint_for
from labdeck.domain.cleanup_policy import EDITABLE
from labdeck.domain.endpoints import Endpoint
from labdeck.domain.protection_rules import (
    APPROVAL_COUNT,
    RULE_LISTS,
    recreating_body,
    restoring_body,
    rule_entries,
)

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
ISSUE_FIELDS = ("state_event", "labels", "add_labels", "remove_labels", "assignee_ids", "assignee_id",
                "milestone_id")


@dataclass(frozen=True)
class Operation:
    """One change as the journal names it. `snapshot` is the path to read before it (None: nothing).
    `name` is what was changed without its owner (`variable MY_VAR`), `owner` the group or project it
    belongs to as the request named it (`("groups", "61")`), so the target can name the owner's path."""

    kind: str
    label: str
    target: str
    snapshot: str | None = None
    no_inverse: str | None = None
    groups: tuple[str, ...] = ()
    name: str = ""
    owner: tuple[str, str] | None = None


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


def _clean(path: str) -> str:
    return path.split("?", 1)[0].strip("/")


def classify(method: str, path: str) -> Operation:
    """The operation a mutating request is (the catalogue's endpoint for it and that endpoint's undo
    rule); an unknown one is journalled with no inverse."""
    method = method.upper()
    clean = _clean(path)
    found = endpoint_for(method, clean)
    if found is not None and found[0].undo is not None:
        endpoint, values = found
        op = _operation(endpoint.undo or "", method, _facts(endpoint, values), clean)
        if op is not None:
            return op
    return Operation("other", f"{method} request", clean, no_inverse="labdeck knows no inverse for it")


def _facts(endpoint: Endpoint, values: dict[str, str]) -> dict[str, str]:
    """What the rules read from a matched request: its owner (`groups` or `projects`) and id, the last
    fixed segment (a moderation operation) and the endpoint's other segment values."""
    literal = [part for part in endpoint.template.split("/") if part and not part.startswith("{")]
    facts = {"scope": literal[0], "op": literal[-1], **values}
    facts["id"] = values.get("group") or values.get("project") or values.get("user_id") or ""
    return facts


def _scope_name(scope: str | None, ident: str) -> str:
    return f"{'group' if scope == 'groups' else 'project'} {ident}"


def _operation(kind: str, method: str, g: dict[str, str], path: str) -> Operation | None:
    if kind == "user":
        op = g["op"]
        snapshot = ep.USER.path(g["user_id"]).lstrip("/")
        if op in USER_OPS:
            return Operation(f"user.{op}", f"{op} user", f"user {g['id']}", snapshot)
        if op in NO_INVERSE_USER_OPS:
            return Operation(f"user.{op}", f"{op} user", f"user {g['id']}", snapshot, NO_INVERSE_USER_OPS[op])
        return None
    owner = (g["scope"], g.get("id", "")) if g.get("scope") in ("groups", "projects") else None
    where = _scope_name(g.get("scope"), g.get("id", ""))

    def of(name: str) -> dict[str, Any]:
        return {"target": f"{name} of {where}", "name": name, "owner": owner}

    if kind == "member":
        verb = "remove member" if method == "DELETE" else "change member level"
        return Operation("member.remove" if method == "DELETE" else "member.level", verb,
                         snapshot=path, groups=("members",), **of(f"user {g['user_id']}"))
    if kind == "label":
        return Operation("label.delete", "delete label", snapshot=path, **of(f"label {g['label']}"))
    if kind == "badge":
        return Operation("badge.delete", "delete badge", snapshot=path, **of(f"badge {g['badge_id']}"))
    if kind == "issue":
        return Operation("issue.update", "update issue", f"issue {g['project']}#{g['iid']}", path,
                         name=f"#{g['iid']}", owner=owner)
    if kind == "tag":
        return Operation("tag.delete", "delete repository tag", snapshot=path, **of(f"tag {g['tag']}"))
    if kind == "project":
        return Operation("project.update", "update project", f"project {g['project']}", path, owner=owner)
    if kind == "variable":
        return Operation("variable.delete", "delete CI variable", snapshot=path,
                         **of(f"variable {g['key']}"))
    if kind == "instance_variable":
        return Operation("variable.delete", "delete CI variable", f"variable {g['key']} of the instance",
                         path, name=f"variable {g['key']}")
    if kind == "protected_environment":  # a change in place (15.4+) or an unprotect
        update = method == "PUT"
        return Operation("protected_environment.update" if update else "protected_environment.delete",
                         "change deploy rules" if update else "unprotect environment", snapshot=path,
                         **of(f"environment {g['name']}"))
    if kind == "registry":
        what = "delete registry repository" if g["op"] == "repositories" else "delete registry tags"
        return Operation("registry.delete", what, no_inverse=REGISTRY_NO_INVERSE,
                         **of(f"repository {g['repository_id']}"))
    return None


def describe_target(op: Operation, before: Mapping[str, Any] | None, owner_path: str | None = None) -> str:
    """A friendlier target once the snapshot and the owner's path are known: `@alice`, not `user 17`;
    `acme/platform/api-gateway#11`, not `issue 1#11`; `variable MY_VAR of acme`, not `... of group 61`."""
    if before and op.kind.startswith("user.") and before.get("username"):
        return f"@{before['username']}"
    references = before.get("references") if before else None
    if op.kind == "issue.update" and isinstance(references, Mapping) and references.get("full"):
        return str(references["full"])
    if owner_path is None and op.owner is not None and not op.owner[1].isdigit():
        owner_path = op.owner[1]  # the request named the owner by its path
    name = op.name
    if before and op.kind.startswith("member.") and before.get("username"):
        name = f"@{before['username']}"
    if owner_path is None:
        return f"{name} of {op.target.split(' of ', 1)[1]}" if name and " of " in op.target else op.target
    if op.kind == "issue.update":
        return f"{owner_path}{op.name}"
    if op.kind == "project.update":
        return owner_path
    return f"{name} of {owner_path}" if name else op.target


def _ids(people: Any) -> list[int]:
    return sorted(int(p["id"]) for p in people or [] if isinstance(p, Mapping) and "id" in p)


def _milestone(issue: Mapping[str, Any]) -> int:
    milestone = issue.get("milestone")
    return int(milestone["id"]) if isinstance(milestone, Mapping) and "id" in milestone else 0


def issue_state(issue: Mapping[str, Any]) -> dict[str, Any]:
    """The undoable fields of an issue, comparable across reads."""
    raw = issue.get("labels") or []
    labels = sorted(str(x.get("name")) if isinstance(x, Mapping) else str(x) for x in raw)
    return {"state": issue.get("state"), "labels": labels,
            "assignee_ids": _ids(issue.get("assignees")), "milestone_id": _milestone(issue)}


# The method of the request each undoable operation is (to find its endpoint again).
_METHOD_OF = {"member.remove": "DELETE", "member.level": "PUT", "label.delete": "DELETE",
              "badge.delete": "DELETE", "tag.delete": "DELETE", "variable.delete": "DELETE",
              "protected_environment.delete": "DELETE"}


def _recreate(op: Operation, clean: str) -> tuple[str, str] | None:
    """For an operation that deleted something: the path that creates it again (relative, as the journal
    writes paths) and the name of its owner's kind; None when the request is not the catalogue's."""
    found = endpoint_for(_METHOD_OF.get(op.kind, ""), clean)
    if found is None:
        return None
    endpoint, values = found
    kind = endpoint.template.split("/")[1]  # groups, projects or admin
    owner = values.get("group") or values.get("project") or ""
    if op.kind.startswith("member."):
        create = ep.owned(kind)["member_add"].path(owner)
    elif op.kind == "label.delete":
        create = ep.GROUP_LABEL_CREATE.path(owner)
    elif op.kind == "badge.delete":
        create = ep.GROUP_BADGE_CREATE.path(owner)
    elif op.kind == "tag.delete":
        create = ep.PROJECT_TAG_CREATE.path(owner)
    elif op.kind == "protected_environment.delete":
        create = ep.PROTECTED_ENVIRONMENT_CREATE.path(owner)
    elif kind == "admin":
        create = ep.INSTANCE_VARIABLE_CREATE.path()
    else:
        create = ep.owned(kind)["variable_create"].path(owner)
    return create.lstrip("/"), owner


def inverse_of(op: Operation, path: str, before: Mapping[str, Any] | None,
               after: Mapping[str, Any] | None, sent: Mapping[str, Any] | None) -> Inverse | None:
    """The request that undoes `op` given what was read before it (and answered after it), or None. Its
    paths come from the endpoint catalogue (the collection a deleted item is created in again)."""
    if op.no_inverse is not None or before is None:
        return None
    clean = _clean(path)
    if op.kind.startswith("user."):
        state, inverse = USER_OPS[op.kind.split(".", 1)[1]]
        ident = clean.split("/")[1]  # the request's user (digits: the catalogue matched it)
        return Inverse("POST", ep.USER_MODERATION[inverse].path(ident).lstrip("/"),
                       check_path=ep.USER.path(ident).lstrip("/"), expect={"state": state})
    if op.kind == "member.level":
        now = after or {}
        return Inverse("PUT", clean, {"access_level": before.get("access_level"),
                                      "expires_at": before.get("expires_at") or ""},
                       check_path=clean, expect={"access_level": now.get("access_level")})
    if op.kind == "issue.update":
        return _issue_inverse(clean, before, after, sent or {})
    if op.kind == "project.update":
        return _policy_inverse(clean, before, after, sent or {})
    if op.kind == "protected_environment.update":
        return _rules_inverse(clean, before, after, sent or {})
    if op.kind == "variable.delete" and (before.get("masked") or before.get("hidden")
                                         or before.get("masked_and_hidden")):
        return None
    recreate = _recreate(op, clean)
    if recreate is None:
        return None
    collection, owner = recreate
    if op.kind == "member.remove":
        body = {"user_id": before.get("id"), "access_level": before.get("access_level"),
                "expires_at": before.get("expires_at")}
        return Inverse("POST", collection, {k: v for k, v in body.items() if v is not None},
                       check_path=clean, expect=ABSENT)
    if op.kind == "label.delete":
        body = {k: before.get(k) for k in ("name", "color", "description", "priority")}
        check = ep.GROUP_LABEL.path(owner, before.get("name", "")).lstrip("/")
        return Inverse("POST", collection, {k: v for k, v in body.items() if v is not None},
                       check_path=check, expect=ABSENT)
    if op.kind == "badge.delete":
        body = {k: before.get(k) for k in ("link_url", "image_url", "name")}
        return Inverse("POST", collection, {k: v for k, v in body.items() if v is not None})
    if op.kind == "tag.delete":
        raw_commit = before.get("commit")
        commit = raw_commit if isinstance(raw_commit, Mapping) else {}
        body = {"tag_name": before.get("name"), "ref": commit.get("id") or before.get("target"),
                "message": before.get("message") or None}
        return Inverse("POST", collection, {k: v for k, v in body.items() if v},
                       check_path=clean, expect=ABSENT)
    if op.kind == "protected_environment.delete":  # protected again as it was, if nobody did since
        return Inverse("POST", collection, recreating_body(before), check_path=clean, expect=ABSENT)
    if op.kind == "variable.delete":
        keys = ("key", "variable_type", "protected", "masked", "raw", "environment_scope", "description")
        body = {k: before.get(k) for k in keys if before.get(k) is not None}
        body["value"] = VALUE_KEPT_IN_MEMORY
        return Inverse("POST", collection, body, check_path=clean, expect=ABSENT)
    return None


def why_no_inverse(op: Operation, before: Mapping[str, Any] | None) -> str | None:
    """Why an operation that ran cannot be undone (None when it can)."""
    if op.no_inverse is not None:
        return op.no_inverse
    if before is None:
        return "what was there before could not be read"
    if op.kind == "variable.delete" and (before.get("masked") or before.get("hidden")
                                         or before.get("masked_and_hidden")):
        return SECRET_VARIABLE
    return None


def _issue_inverse(path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
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


def _policy_inverse(path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                    sent: Mapping[str, Any]) -> Inverse | None:
    """A cleanup policy change is undone by sending the old policy back (GitLab restarts its interval)."""
    old, new = policy_settings(before), policy_settings(after)
    if POLICY_ATTRIBUTES not in sent or old is None or new is None or old == new:
        return None
    return Inverse("PUT", path, {POLICY_ATTRIBUTES: old}, check_path=path, expect={POLICY: new})


def _rules_inverse(path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                   sent: Mapping[str, Any]) -> Inverse | None:
    """Rules changed in place are undone by the PUT that turns the rules answered after the change back into
    those read before it, if the rules are still what the change left (`protection_rules`)."""
    if after is None:
        return None
    keys = tuple(key for key in RULE_LISTS if key in sent)
    body = restoring_body(after, before, keys)
    if APPROVAL_COUNT in sent and before.get(APPROVAL_COUNT) != after.get(APPROVAL_COUNT):
        body[APPROVAL_COUNT] = before.get(APPROVAL_COUNT)
    if not body:
        return None
    expect: dict[str, Any] = {key: rule_entries(after, key) for key in keys}
    if APPROVAL_COUNT in body:
        expect[APPROVAL_COUNT] = after.get(APPROVAL_COUNT)
    return Inverse("PUT", path, body, check_path=path, expect=expect)


def changed_since(inverse: Inverse, current: Mapping[str, Any] | None) -> str | None:
    """Why an undo must not run now (the target changed since), or None when it is safe."""
    if inverse.check_path is None:
        return None
    if inverse.expect == ABSENT:
        return None if current is None else "it exists again (recreated since)"
    if current is None:
        return "it no longer exists"
    expected = inverse.expect if isinstance(inverse.expect, Mapping) else {}
    now = issue_state(current) if "labels" in expected or "assignee_ids" in expected else dict(current)
    if POLICY in expected:
        now[POLICY] = policy_settings(current)
    for key in RULE_LISTS.keys() & expected.keys():
        now[key] = rule_entries(current, key)
    if "state" in expected and "state" not in now:
        now["state"] = current.get("state")
    if "milestone_id" in expected:
        now["milestone_id"] = _milestone(current)
    for key, value in expected.items():
        if now.get(key) != value and key in RULE_LISTS:
            return f"its {key.replace('_', ' ')} are not the ones the change left"
        if now.get(key) != value:
            return f"its {key.replace('_', ' ')} is now {_show(now.get(key))}, not {_show(value)}"
    return None


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)
