"""What the undo journal knows about a change: which operation a request is, what to read before it, how
GitLab undoes it, and whether an undo is still safe.

Pure rules over paths (relative to `/api/v4`, as the request log shows them) and plain dicts (the JSON GitLab
answers); the I/O lives in `labdeck.api.journal`. An operation GitLab cannot undo says why (`no_inverse`), so
that a confirmation can say so before it runs. Nothing here holds a CI variable's value: the inverse of a
variable's deletion names the value as `VALUE_KEPT_IN_MEMORY`, and the journal fills it from memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from labdeck.domain import catalogue as ep
from labdeck.domain.catalogue import endpoint_for
from labdeck.domain.change_names import NAMINGS, Naming, names_owner, names_to_read, said
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
ISSUE_FIELDS = ("state_event", "labels", "add_labels", "remove_labels", "assignee_ids", "assignee_id",
                "milestone_id")


@dataclass(frozen=True)
class Operation:
    """One change as the journal names it. `snapshot` is the path to read before it (None: nothing).
    `owner` is the group or project it belongs to as the request named it (`("groups", "61")`), so the
    target can name the owner's path.
    `naming` says the target in words (`domain.change_names`), over the request's segment `values`;
    `target` is that said with what the request alone tells (`tag v1 of project 58`)."""

    kind: str
    label: str
    target: str
    snapshot: str | None = None
    no_inverse: str | None = None
    groups: tuple[str, ...] = ()
    owner: tuple[str, str] | None = None
    naming: Naming | None = None
    values: tuple[tuple[str, str], ...] = ()

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


def _clean(path: str) -> str:
    return path.split("?", 1)[0].strip("/")


def classify(method: str, path: str, sent: Mapping[str, Any] | None = None) -> Operation:
    """The operation a mutating request is (the catalogue's endpoint for it, that endpoint's undo rule and
    its words, `domain.change_names`; `sent`: what the request sends, for words that depend on it, a
    `/promote` note); a request the catalogue does not know is journalled with no inverse."""
    method = method.upper()
    clean = _clean(path)
    found = endpoint_for(method, clean)
    if found is None:
        return Operation("other", f"{method} request", clean, no_inverse="labdeck knows no inverse for it")
    endpoint, values = found
    facts = _facts(endpoint, values)
    op = _operation(endpoint.undo, method, facts, clean) if endpoint.undo is not None else None
    if op is None:
        owner = (facts["scope"], facts["id"]) if facts["scope"] in ("groups", "projects") else None
        op = Operation("other", "", "", no_inverse="labdeck knows no inverse for it", owner=owner)
    naming = NAMINGS.get(endpoint.name)
    if naming is None:  # a write the words do not know yet: said by its endpoint's name, never its path
        naming = Naming(endpoint.name.replace("_", " ").replace(".", " "), "{owner}")
    op = replace(op, naming=naming, values=tuple(values.items()), label=naming.label_for(sent))
    return replace(op, target=_said(op, None, _scope_name(*op.owner) if op.owner else None))


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
    """The undo rule's facts of one change: its kind, what to read before it, why GitLab has no inverse.
    Its words (label and target) are the endpoint's (`domain.change_names`), set by `classify`."""
    if kind == "user":
        op = g["op"]
        snapshot = ep.USER.path(g["user_id"]).lstrip("/")
        if op in USER_OPS:
            return Operation(f"user.{op}", "", "", snapshot)
        if op in NO_INVERSE_USER_OPS:
            return Operation(f"user.{op}", "", "", snapshot, NO_INVERSE_USER_OPS[op])
        return None
    owner = (g["scope"], g.get("id", "")) if g.get("scope") in ("groups", "projects") else None
    kinds = {"label": "label.delete", "badge": "badge.delete", "tag": "tag.delete", "issue": "issue.update",
             "variable": "variable.delete", "instance_variable": "variable.delete",
             "project": "project.update"}
    if kind == "member":
        return Operation("member.remove" if method == "DELETE" else "member.level", "", "", path,
                         groups=("members",), owner=owner)
    if kind in kinds:
        return Operation(kinds[kind], "", "", path, owner=owner)
    if kind == "archive":  # archive or unarchive: the project is read before, its `archived` compared
        return Operation(f"project.{g['op']}", "", "", ep.PROJECT.path(g["project"]).lstrip("/"), owner=owner)
    if kind == "registry":
        return Operation("registry.delete", "", "", no_inverse=REGISTRY_NO_INVERSE, owner=owner)
    return None


def describe_target(op: Operation, before: Mapping[str, Any] | None, owner_path: str | None = None, *,
                    answer: Mapping[str, Any] | None = None, sent: Mapping[str, Any] | None = None,
                    names: Mapping[tuple[str, str], str] | None = None) -> str:
    """The target by path and name, from what is known when the change is made: what was read before it,
    the owner's path, the change's answer, what was sent, and the names the journal read (`names`, by
    `Operation.reads()` key): `@alice`, not `user 17`; `acme/platform/api-gateway#11`, not `issue 1#11`;
    `variable MY_VAR of acme`, not `... of group 61`; `acme/platform/api-gateway/builds`, not
    `repository 2`."""
    if op.naming is None:
        return op.target
    if owner_path is None and op.owner is not None and not op.owner[1].isdigit():
        owner_path = op.owner[1]  # the request named the owner by its path
    return _said(op, before, owner_path or (_scope_name(*op.owner) if op.owner else None), answer=answer,
                 sent=sent, names=names)


def _said(op: Operation, before: Mapping[str, Any] | None, owner: str | None, *,
          answer: Mapping[str, Any] | None = None, sent: Mapping[str, Any] | None = None,
          names: Mapping[tuple[str, str], str] | None = None) -> str:
    assert op.naming is not None
    return said(op.naming, dict(op.values), owner, before=before, answer=answer, sent=sent, names=names)


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
              "badge.delete": "DELETE", "tag.delete": "DELETE", "variable.delete": "DELETE"}


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
    if op.kind in ARCHIVE_OPS:
        return _archive_inverse(op, clean, before)
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


def _archive_inverse(op: Operation, path: str, before: Mapping[str, Any]) -> Inverse | None:
    """Archiving is undone by unarchiving and the other way round, while the project is still as the change
    left it; a change that changed nothing (GitLab answers 201 all the same) has nothing to undo."""
    archived = op.kind == "project.archive"
    found = endpoint_for("POST", path)
    if found is None or before.get("archived") is archived:
        return None
    project = found[1]["project"]
    undo = ep.PROJECT_UNARCHIVE if archived else ep.PROJECT_ARCHIVE
    return Inverse("POST", undo.path(project).lstrip("/"), check_path=ep.PROJECT.path(project).lstrip("/"),
                   expect={"archived": archived})


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
    if "state" in expected and "state" not in now:
        now["state"] = current.get("state")
    if "milestone_id" in expected:
        now["milestone_id"] = _milestone(current)
    for key, value in expected.items():
        if now.get(key) != value:
            return f"its {key.replace('_', ' ')} is now {_show(now.get(key))}, not {_show(value)}"
    return None


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)
