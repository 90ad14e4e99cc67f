"""A protected environment's rules as GitLab changes them in place, and how such a change is undone.

Since GitLab 15.4, `PUT /projects/:id/protected_environments/:name` (and the group-level one) changes a
protection's `deploy_access_levels` and `approval_rules` as nested records (`ee/lib/api/
protected_environments.rb`, `doc/api/protected_environments.md` "Update a protected environment",
gitlab#351854): an entry with `id` changes that rule, `{"id": 12, "_destroy": true}` drops it, an entry
without `id` adds one. A change is undone by the PUT that turns the rules answered after it back into the
rules read before it (`restoring_body`): the rules it added are dropped, those it dropped are added again
(GitLab gives them new ids), those it changed get their old values back. Before an undo, the rules read
then must still be the rules the change left (`rule_entries`, compared by id and value).

Pure functions over the JSON GitLab answers (`ProtectedEnvironment` entity: `name`, `deploy_access_levels`,
`required_approval_count`, `approval_rules`), and the journal's rule for both changes of a protection
(`ProtectionChange`, held by the catalogue's `PROTECTED_ENVIRONMENT_UPDATE` and `_DELETE`): a change in place
is undone by the restoring PUT, an unprotect by protecting again as it was (`recreating_body`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from labdeck.domain.endpoints import Endpoint
from labdeck.domain.undo_rules import ABSENT, Change, Inverse, Operation, UndoRule

# The nested lists a PUT changes, and the fields of one of their entries that say what it is
RULE_LISTS: Final[dict[str, tuple[str, ...]]] = {
    "deploy_access_levels": ("access_level", "user_id", "group_id"),
    "approval_rules": ("access_level", "user_id", "group_id", "required_approvals"),
}
APPROVAL_COUNT: Final = "required_approval_count"
_WHO: Final = ("user_id", "group_id", "access_level")  # a rule names a user, else a group, else a role


def rule_entries(protection: Mapping[str, Any] | None, key: str) -> list[dict[str, Any]]:
    """The rules of list `key` of `protection` (the entity's JSON), each as its id and the fields that say
    what it is, in id order: comparable across reads (descriptions and names left out)."""
    raw = protection.get(key) if protection is not None else None
    entries = [{"id": item.get("id"), **{name: item.get(name) for name in RULE_LISTS[key]}}
               for item in raw or [] if isinstance(item, Mapping)]
    return sorted(entries, key=lambda entry: (entry["id"] is None, str(entry["id"])))


def who(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The one field a new rule is sent with: its user, else its group, else its role (older GitLab answers
    `access_level: 40` beside a user's or a group's id; GitLab refuses a rule sent with both)."""
    for name in _WHO:
        if entry.get(name) is not None:
            return {name: entry[name]}
    return {}


def _new_entry(key: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    made = who(entry)
    if key == "approval_rules" and entry.get("required_approvals") is not None:
        made["required_approvals"] = entry["required_approvals"]
    return made


def restoring_body(current: Mapping[str, Any], wanted: Mapping[str, Any],
                   keys: tuple[str, ...] = tuple(RULE_LISTS)) -> dict[str, Any]:
    """The PUT body that turns the rules of `current` (lists `keys`) into those of `wanted`; `{}` when they
    are the same. A rule of `wanted` that `current` lacks is added without its old id (GitLab cannot give it
    back)."""
    body: dict[str, Any] = {}
    for key in keys:
        now = {entry["id"]: entry for entry in rule_entries(current, key)}
        then = {entry["id"]: entry for entry in rule_entries(wanted, key)}
        changes: list[dict[str, Any]] = []
        for ident, entry in then.items():
            if ident is None or ident not in now:
                changes.append(_new_entry(key, entry))
            elif now[ident] != entry:
                changes.append({"id": ident, **dict.fromkeys(_WHO), **_new_entry(key, entry)})
        changes.extend({"id": ident, "_destroy": True} for ident in now
                       if ident is not None and ident not in then)
        if changes:
            body[key] = changes
    return body


def recreating_body(protection: Mapping[str, Any]) -> dict[str, Any]:
    """The body of `POST /projects/:id/protected_environments` that protects an environment again as
    `protection` was (after an unprotect)."""
    body: dict[str, Any] = {
        "name": protection.get("name"),
        "deploy_access_levels": [who(entry) for entry in rule_entries(protection, "deploy_access_levels")]}
    approvals = [_new_entry("approval_rules", entry) for entry in rule_entries(protection, "approval_rules")]
    if approvals:
        body["approval_rules"] = approvals
    if protection.get(APPROVAL_COUNT):
        body[APPROVAL_COUNT] = protection[APPROVAL_COUNT]
    return body


def describe_rules(protection: Mapping[str, Any] | None) -> list[str]:
    """Who may deploy, in GitLab's own words (`access_level_description`: `Maintainers`, a user's name)."""
    raw = protection.get("deploy_access_levels") if protection is not None else None
    return [str(item.get("access_level_description") or _plain(item))
            for item in raw or [] if isinstance(item, Mapping)]


def _plain(entry: Mapping[str, Any]) -> str:
    """`user 5`, `group 9`, `level 40`: a rule without GitLab's description."""
    for name, value in who(entry).items():
        return f"{name.removesuffix('_id').replace('access_', '')} {value}"
    return "unknown"


class ProtectionChange(UndoRule):
    """A protected environment's rules changed in place (`PUT`, 15.4+: undone by the PUT that restores the
    rules read before it, while they are still the ones the change left) or its unprotect (`DELETE`: undone
    by protecting it again as it was, in `create`, while it is not protected again)."""

    def __init__(self, create: Endpoint) -> None:
        self.create = create

    def operation(self, change: Change) -> Operation:
        update = change.method == "PUT"  # its words are the endpoint's (`domain.change_names`)
        return Operation("protected_environment.update" if update else "protected_environment.delete",
                         snapshot=change.path, owner=change.owner)

    def inverse(self, op: Operation, path: str, before: Mapping[str, Any], after: Mapping[str, Any] | None,
                sent: Mapping[str, Any]) -> Inverse | None:
        if op.kind == "protected_environment.delete":
            owner = {name: op.values[name] for name, _ in self.create.segments}
            return Inverse("POST", self.create.path(**owner).lstrip("/"), recreating_body(before),
                           check_path=path, expect=ABSENT)
        if after is None:
            return None
        keys = tuple(key for key in RULE_LISTS if key in sent)
        body = restoring_body(after, before, keys)
        if not body:
            return None
        return Inverse("PUT", path, body, check_path=path,
                       expect={key: rule_entries(after, key) for key in keys})
