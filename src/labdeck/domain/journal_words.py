"""The undo journal in words: what a change did, before and after, for `:journal`'s detail and questions.

Pure functions over what an entry recorded (its kind, operation, target and the summaries of the target read
before the change and answered after it). Nothing here is ever a Python repr: lists are joined, a milestone
or a user is named, an access level has its name, a boolean is yes or no.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from labdeck.domain.access_levels import AccessLevel
from labdeck.domain.digits import integer_value
from labdeck.domain.journal_rules import ARCHIVE_OPS, POLICY, USER_OPS, issue_state
from labdeck.domain.protection_rules import describe_rules

# The state GitLab's API calls each account condition, in words
_STATES = {"blocked_pending_approval": "pending approval", "ldap_blocked": "blocked by LDAP"}
# A deletion's target, in words, when the snapshot is known (what is gone)
_DELETED = {"member.remove": "removed", "label.delete": "deleted", "badge.delete": "deleted",
            "tag.delete": "deleted", "variable.delete": "deleted", "registry.delete": "deleted",
            "protected_environment.delete": "unprotected"}


def change_phrase(operation: str, target: str) -> str:
    """`delete CI variable MY_VAR of acme` (not `delete CI variable of variable MY_VAR of acme`): the
    operation and its target, the target's leading noun (one or two words: `wiki page`) left out when the
    operation ends with it."""
    said = target.split(" ")
    for length in (2, 1):  # `create wiki page` + `wiki page home of acme/app`: the noun said once
        noun, rest = " ".join(said[:length]), " ".join(said[length:])
        if rest and len(said) > length and operation.endswith(" " + noun):
            return f"{operation} {rest}"
    noun, _, rest = target.partition(" ")
    if operation.endswith(" rules"):  # `change deploy rules of environment production of acme/app`
        return f"{operation} of {target}"
    if rest and operation.endswith(" " + noun):
        return f"{operation} {rest}"
    if rest and noun == "user" and operation.endswith(" member"):
        return f"{operation} {rest}"
    return f"{operation} {target}"


def words(value: Any) -> str:
    """One value as an operator reads it: `none`, `yes`, `bug, ux`, a milestone's title, `@alice`."""
    if value is None or value == "" or value == []:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Mapping):
        for key in ("title", "name"):
            if value.get(key):
                return str(value[key])
        if value.get("username"):
            return f"@{value['username']}"
        return ", ".join(f"{k.replace('_', ' ')} {words(v)}" for k, v in value.items()) or "none"
    if isinstance(value, list | tuple):
        return ", ".join(words(item) for item in value)
    return str(value)


def _level(value: Any) -> str:
    number = integer_value(value)
    try:
        return AccessLevel(number).label if number is not None else words(value)
    except ValueError:
        return words(value)


def _state(value: Any) -> str:
    return _STATES.get(str(value), words(value))


def _people(issue: Mapping[str, Any]) -> str:
    return words([p for p in issue.get("assignees") or [] if isinstance(p, Mapping)])


def _issue_rows(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    old, new = issue_state(before), issue_state(after)
    rows = []
    if old["state"] != new["state"]:
        rows.append(("state", words(old["state"]), words(new["state"])))
    if old["labels"] != new["labels"]:
        rows.append(("labels", words(old["labels"]), words(new["labels"])))
    if old["assignee_ids"] != new["assignee_ids"]:
        rows.append(("assignees", _people(before), _people(after)))
    if old["milestone_id"] != new["milestone_id"]:
        rows.append(("milestone", words(before.get("milestone")), words(after.get("milestone"))))
    return rows


def _policy_rows(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    old, new = before.get(POLICY), after.get(POLICY)
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return []
    return [(f"cleanup {key.replace('_', ' ')}", words(old.get(key)), words(new.get(key)))
            for key in sorted(set(old) | set(new)) if key != "next_run_at" and old.get(key) != new.get(key)]


def change_rows(kind: str, operation: str, before: Mapping[str, Any] | None,
                after: Mapping[str, Any] | None, ok: bool) -> list[tuple[str, str, str]]:
    """What changed, as `(what, before, after)` rows in words; [] when nothing is known of it."""
    if before is None:
        return []
    if kind.startswith("user."):
        op = kind.split(".", 1)[1]
        gone = "deleted (sign-up rejected)" if op == "reject" else "active" if op == "approve" else None
        state = gone or (USER_OPS[op][0] if op in USER_OPS else "unknown")
        return [("state", _state(before.get("state")), _state(state) if ok else "not done")]
    if kind == "member.level":
        rows = [("access level", _level(before.get("access_level")),
                 _level((after or {}).get("access_level")) if ok and after else "not done")]
        if after and before.get("expires_at") != after.get("expires_at"):
            rows.append(("expires", words(before.get("expires_at")), words(after.get("expires_at"))))
        return rows
    if kind == "issue.update":
        return _issue_rows(before, after) if ok and after else []
    if kind == "project.update":
        return _policy_rows(before, after) if ok and after else []
    if kind == "protected_environment.update":
        return [("who may deploy", words(describe_rules(before)),
                 words(describe_rules(after)) if ok and after else "not done")]
    if kind in ARCHIVE_OPS and "archived" in before:
        after_change = words(kind == "project.archive") if ok else "not done"
        return [("archived", words(before.get("archived")), after_change)]
    if kind in _DELETED:
        return [("", what_was(kind, before), _DELETED[kind] if ok else "not done")]
    return []


def what_was(kind: str, before: Mapping[str, Any]) -> str:
    """The deleted thing, named from its snapshot: `member @alice (Developer)`, `label bug`, `tag v1.0`."""
    if kind == "member.remove":
        level = f" ({_level(before.get('access_level'))})" if before.get("access_level") else ""
        return f"member @{before.get('username') or before.get('id')}{level}"
    if kind == "variable.delete":
        scope = before.get("environment_scope")
        where = f" (environment {scope})" if scope not in (None, "*") else ""
        return f"variable {before.get('key')}{where}"
    if kind == "badge.delete":
        return f"badge {before.get('name') or before.get('link_url') or before.get('id')}"
    if kind == "protected_environment.delete":
        return f"protection of {before.get('name')} ({words(describe_rules(before))} may deploy)"
    noun = {"label.delete": "label", "tag.delete": "tag"}.get(kind, "item")
    return f"{noun} {before.get('name') or before.get('title') or before.get('id')}"


def _owned(target: str) -> tuple[str, str]:
    """`@alice of acme` -> (`@alice`, `acme`)."""
    who, _, where = target.partition(" of ")
    return who, where or "its owner"


def _issue_undo(target: str, before: Mapping[str, Any], body: Mapping[str, Any]) -> str:
    """`reopen acme/app#6`, `set acme/app#6 back to labels bug, ux`, or both."""
    verb = {"reopen": "reopen", "close": "close"}.get(str(body.get("state_event")), "")
    back = []
    if "labels" in body:
        back.append(f"labels {words(issue_state(before)['labels'])}")
    if "assignee_ids" in body:
        back.append(f"assignees {_people(before)}")
    if "milestone_id" in body:
        back.append(f"milestone {words(before.get('milestone'))}")
    if verb and back:
        return f"{verb} {target} and set its {', '.join(back)} back"
    return f"{verb} {target}" if verb else f"set {target} back to {', '.join(back) or 'as it was'}"


def undo_phrase(kind: str, target: str, before: Mapping[str, Any] | None,
                inverse: Mapping[str, Any] | None) -> str:
    """What undoing an entry does, in words: `unblock @bob`, `add @alice back to acme as Developer`,
    `reopen acme/app#6`, `recreate label bug of acme` (never the change that was made)."""
    known = before or {}
    body = inverse.get("body") if isinstance(inverse, Mapping) else None
    body = body if isinstance(body, Mapping) else {}
    if kind.startswith("user.") and kind.split(".", 1)[1] in USER_OPS:
        return f"{USER_OPS[kind.split('.', 1)[1]][1]} {target}"
    if kind == "member.remove":
        who, where = _owned(target)
        until = f" until {known['expires_at']}" if known.get("expires_at") else ""
        return f"add {who} back to {where} as {_level(known.get('access_level'))}{until}"
    if kind == "member.level":
        return f"set {target} back to {_level(known.get('access_level'))}"
    if kind == "issue.update":
        return _issue_undo(target, known, body)
    if kind == "project.update":
        return f"put the cleanup policy of {target} back as it was"
    if kind in ARCHIVE_OPS:
        return f"{'unarchive' if kind == 'project.archive' else 'archive'} {target}"
    if kind == "tag.delete":
        commit = known.get("commit")
        sha = commit.get("id") if isinstance(commit, Mapping) else None
        return f"recreate {target}" + (f" on commit {str(sha)[:8]}" if sha else "")
    if kind in _DELETED:
        return f"recreate {target}"
    return f"undo {target}"


def undo_question(kind: str, operation: str, target: str, before: Mapping[str, Any] | None,
                  inverse: Mapping[str, Any] | None, refusal: str | None) -> str:
    """The undo's confirmation (`Undo: unblock @bob?`), or why the entry cannot be undone."""
    if refusal is not None:
        return f"Cannot undo {change_phrase(operation, target)}: {refusal}"
    return f"Undo: {undo_phrase(kind, target, before, inverse)}?"
