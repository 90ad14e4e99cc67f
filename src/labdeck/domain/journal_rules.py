"""What the undo journal knows about a change: which operation a request is (the rule its endpoint holds
names it), what to read before it, how GitLab undoes it, and whether an undo is still safe.

The rules themselves, one object per kind of change, are in `labdeck.domain.undo_rules`, held by the
catalogue's endpoints (`Endpoint.undo`); this module finds the endpoint of a request and asks its rule.
Pure rules over paths (relative to `/api/v4`, as the request log shows them) and plain dicts (the JSON GitLab
answers); the I/O lives in `labdeck.api.journal`. An operation GitLab cannot undo says why (`no_inverse`), so
that a confirmation can say so before it runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from labdeck.domain.catalogue import endpoint_for
from labdeck.domain.change_names import NAMINGS, Naming, said
from labdeck.domain.digits import is_digits
from labdeck.domain.protection_rules import RULE_LISTS, rule_entries
from labdeck.domain.undo_rules import (
    ABSENT,
    ARCHIVE_OPS,
    NO_INVERSE_USER_OPS,
    POLICY,
    POLICY_ATTRIBUTES,
    REGISTRY_NO_INVERSE,
    SECRET_VARIABLE,
    USER_OPS,
    VALUE_KEPT_IN_MEMORY,
    Change,
    Inverse,
    Operation,
    issue_state,
    milestone_of,
    policy_settings,
)

__all__ = ["ABSENT", "ARCHIVE_OPS", "NO_INVERSE_USER_OPS", "POLICY", "POLICY_ATTRIBUTES",
           "REGISTRY_NO_INVERSE", "SECRET_VARIABLE", "USER_OPS", "VALUE_KEPT_IN_MEMORY", "Inverse",
           "Operation", "changed_since", "classify", "describe_target", "inverse_of", "issue_state",
           "policy_settings", "why_no_inverse"]


def _clean(path: str) -> str:
    return path.split("?", 1)[0].strip("/")


def classify(method: str, path: str, sent: Mapping[str, Any] | None = None) -> Operation:
    """The operation a mutating request is: the catalogue's endpoint for it, the undo rule that endpoint
    holds, and its words (`domain.change_names`; `sent`: what the request sends, for words that depend on
    it, a `/promote` note); a request the catalogue does not know is journalled with no inverse."""
    method = method.upper()
    clean = _clean(path)
    found = endpoint_for(method, clean)
    if found is None:
        return Operation("other", f"{method} request", clean, no_inverse="labdeck knows no inverse for it")
    endpoint, values = found
    change = Change(method, clean, endpoint, values)
    rule = endpoint.undo
    op = rule.operation(change) if rule is not None else None
    if op is None:
        op = Operation("other", no_inverse="labdeck knows no inverse for it", owner=change.owner)
    else:
        op = replace(op, rule=rule)
    naming = NAMINGS.get(endpoint.name)
    if naming is None:  # a write the words do not know yet: said by its endpoint's name, never its path
        naming = Naming(endpoint.name.replace("_", " ").replace(".", " "), "{owner}")
    op = replace(op, naming=naming, values=values, label=naming.label_for(sent))
    return replace(op, target=_said(op, None, _scope_name(*op.owner) if op.owner else None))


def _scope_name(scope: str | None, ident: str) -> str:
    return f"{'group' if scope == 'groups' else 'project'} {ident}"


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
    if owner_path is None and op.owner is not None and not is_digits(op.owner[1]):
        owner_path = op.owner[1]  # the request named the owner by its path
    return _said(op, before, owner_path or (_scope_name(*op.owner) if op.owner else None), answer=answer,
                 sent=sent, names=names)


def _said(op: Operation, before: Mapping[str, Any] | None, owner: str | None, *,
          answer: Mapping[str, Any] | None = None, sent: Mapping[str, Any] | None = None,
          names: Mapping[tuple[str, str], str] | None = None) -> str:
    assert op.naming is not None
    return said(op.naming, dict(op.values), owner, before=before, answer=answer, sent=sent, names=names)


def inverse_of(op: Operation, path: str, before: Mapping[str, Any] | None,
               after: Mapping[str, Any] | None, sent: Mapping[str, Any] | None) -> Inverse | None:
    """The request that undoes `op` given what was read before it (and answered after it), or None: the
    rule its endpoint holds decides (its paths come from the endpoints that rule was given)."""
    if op.no_inverse is not None or before is None or op.rule is None:
        return None
    return op.rule.inverse(op, _clean(path), before, after, sent or {})


def why_no_inverse(op: Operation, before: Mapping[str, Any] | None) -> str | None:
    """Why an operation that ran cannot be undone (None when it can)."""
    if op.no_inverse is not None:
        return op.no_inverse
    if before is None:
        return "what was there before could not be read"
    return op.rule.why_not(before) if op.rule is not None else None


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
    for key in RULE_LISTS.keys() & expected.keys():  # a protection's rules, compared by id and value
        now[key] = rule_entries(current, key)
    if "state" in expected and "state" not in now:
        now["state"] = current.get("state")
    if "milestone_id" in expected:
        now["milestone_id"] = milestone_of(current)
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
