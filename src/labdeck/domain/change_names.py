"""Every change the endpoint catalogue knows, in words: what the journal calls the operation (`comment on
issue`, `delete registry tag`) and how it names the target (`acme/platform/api-gateway#6`,
`acme/platform/api-gateway/builds:v1.0`, `@bob of acme`), never by a request's path or its ids.

A target is a template over names the journal knows when the change is made:
- `{owner}`: the group's or project's path (read once per owner by the journal when the request named an id);
- `{issue}`: the issue's reference (`acme/app#6`, from what the journal read or the answer);
- `{user}`: `@username` (from what was read before, the answer, or one read of the user);
- `{repository}`: a registry repository's path (read before the change: a deletion takes it away);
- `{forked_from}`: the path of the project a fork relation points to;
- `{it}`: the item's own name, the first of `it` fields found in what was read before, the answer, then
  what was sent (`it_else` when none is);
- the request's path segments by their catalogue names (`{key}`, `{slug}`, `{tag}`, `{domain}`, ...).

`tests/api/test_journal_catalogue_words.py` walks every write endpoint of the catalogue through the journal
and holds each to words with a path. Pure data and string work: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final


@dataclass(frozen=True)
class Naming:
    """How one endpoint's change is said: `label` (the operation), `target` (a template, see the module),
    the fields that name the item (`it`, else the `it_else` template; an `iid` is said `#3`), and a label
    that depends on what was sent (`when_sent`: `(field, value, label)`, the first that matches)."""

    label: str
    target: str
    it: tuple[str, ...] = ()
    it_else: str = ""
    when_sent: tuple[tuple[str, object, str], ...] = ()
    sent_names: tuple[str, ...] = ()  # fields of what was sent that `it_else` may name (`{environment}`)

    def label_for(self, sent: Mapping[str, Any] | None) -> str:
        for name, value, label in self.when_sent:
            if sent is not None and _same(sent.get(name), value):
                return label
        return self.label


def _same(found: object, wanted: object) -> bool:
    if isinstance(found, str) and isinstance(wanted, str):
        return found.strip() == wanted
    return found is wanted if isinstance(wanted, bool) else found == wanted


N = Naming
_OF = " of {owner}"
_BADGE = ("name", "link_url")
_USER_OPS = ("approve", "reject", "deactivate", "activate", "block", "unblock", "ban", "unban")
_TIME = {"time_estimate": "set the time estimate of issue",
         "reset_time_estimate": "reset the time estimate of issue",
         "add_spent_time": "add time spent on issue", "reset_spent_time": "reset the time spent on issue"}
_OWNED = {  # groups' and projects' members and variables alike
    "member_add": N("add member", "{user}" + _OF),
    "member_update": N("change member level", "{user}" + _OF),
    "member_delete": N("remove member", "{user}" + _OF),
    "variable_create": N("add CI variable", "variable {it}" + _OF, it=("key",)),
    "variable_update": N("edit CI variable", "variable {key}" + _OF),
    "variable_delete": N("delete CI variable", "variable {key}" + _OF),
}

# By the catalogue's endpoint name (`labdeck.domain.catalogue`).
NAMINGS: Final[dict[str, Naming]] = {
    "instance_variable_create": N("add CI variable", "variable {it} of the instance", it=("key",)),
    "instance_variable_update": N("edit CI variable", "variable {key} of the instance"),
    "instance_variable_delete": N("delete CI variable", "variable {key} of the instance"),
    **{f"user_moderation.{op}": N(f"{op} user", "{user}") for op in _USER_OPS},
    "group_export": N("export group", "{owner}"),
    "group_import": N("import group", "{it}", it=("full_path", "path", "name")),
    "group_relations_export": N("export the relations of group", "{owner}"),
    "group_badge_create": N("add badge", "badge {it}" + _OF, it=_BADGE),
    "group_badge_update": N("edit badge", "badge {it}" + _OF, it=_BADGE, it_else="{badge_id}"),
    "group_badge_delete": N("delete badge", "badge {it}" + _OF, it=_BADGE, it_else="{badge_id}"),
    "group_label_create": N("create label", "label {it}" + _OF, it=("name",)),
    "group_label_update": N("edit label", "label {it}" + _OF, it=("name",), it_else="{label}"),
    "group_label_delete": N("delete label", "label {it}" + _OF, it=("name",), it_else="{label}"),
    "group_label_subscribe": N("subscribe to label", "label {it}" + _OF, it=("name",), it_else="{label}"),
    "group_label_unsubscribe": N("unsubscribe from label", "label {it}" + _OF, it=("name",),
                                 it_else="{label}"),
    "group_billable_member_delete": N("remove billable member", "{user}" + _OF),
    "group_member_override": N("turn on the LDAP override of member", "{user}" + _OF),
    "group_member_override_delete": N("turn off the LDAP override of member", "{user}" + _OF),
    **{f"group_owned.{name}": naming for name, naming in _OWNED.items()},
    **{f"project_owned.{name}": naming for name, naming in _OWNED.items()},
    "project_update": N("update project", "{owner}"),
    "project_archive": N("archive project", "{owner}"),
    "project_unarchive": N("unarchive project", "{owner}"),
    "project_fork": N("fork project", "{owner}"),
    "project_fork_relation": N("set the fork source of", "{owner} to {forked_from}"),
    "project_fork_relation_delete": N("remove the fork relation of", "{owner}"),
    "project_error_tracking_update": N("change error tracking of", "{owner}", when_sent=(
        ("active", True, "enable error tracking of"), ("active", False, "disable error tracking of"))),
    "project_wiki_create": N("create wiki page", "wiki page {it}" + _OF, it=("slug", "title")),
    "project_wiki_update": N("edit wiki page", "wiki page {slug}" + _OF),
    "project_wiki_delete": N("delete wiki page", "wiki page {slug}" + _OF),
    "project_wiki_attachment": N("upload a wiki attachment to", "{owner}"),
    "project_tag_create": N("create tag", "tag {it}" + _OF, it=("name", "tag_name")),
    "project_tag_delete": N("delete repository tag", "tag {tag}" + _OF),
    "project_pages_domain_create": N("add Pages domain", "domain {it}" + _OF, it=("domain",)),
    "project_pages_domain_update": N("change Pages domain", "domain {domain}" + _OF),
    "project_pages_domain_delete": N("delete Pages domain", "domain {domain}" + _OF),
    "issue_create": N("create issue", "{it}", it=("references.full",), it_else="in {owner}"),
    "issue_update": N("update issue", "{issue}"),
    "issue_delete": N("delete issue", "{issue}"),
    # a `/promote` note promotes the issue to an epic (the quick action; `IssuesService.promote`)
    "issue_note_create": N("comment on issue", "{issue}", when_sent=(("body", "/promote", "promote issue"),)),
    "issue_todo": N("add a to-do for issue", "{issue}"),
    **{f"issue_time.{action}": N(label, "{issue}") for action, label in _TIME.items()},
    "deployment_create": N("record deployment", "deployment {it}" + _OF, it=("iid",),
                           it_else="to {environment}", sent_names=("environment",)),
    "deployment_update": N("change the status of deployment", "deployment {it}" + _OF, it=("iid",),
                           it_else="{deployment_id}"),
    "protected_environment_create": N("protect environment", "environment {it}" + _OF, it=("name",)),
    "protected_environment_delete": N("unprotect environment", "environment {name}" + _OF),
    "protected_environment_update": N("change deploy rules", "environment {name}" + _OF),
    "registry_repository_delete": N("delete registry repository", "{repository}"),
    "registry_tags_delete": N("delete registry tags of", "{repository}"),
    "registry_tag_delete": N("delete registry tag", "{repository}:{tag}"),
    # a rotation's answer holds the new token: its words are the request's alone (no `{it}`, so the journal
    # never reads that answer)
    "personal_access_token_rotate": N("rotate personal access token", "#{token_id} on the instance"),
    "personal_access_token_revoke": N("revoke personal access token", "#{token_id} on the instance"),
    "group_access_tokens.rotate": N("rotate group access token", "#{token_id}" + _OF),
    "group_access_tokens.revoke": N("revoke group access token", "#{token_id}" + _OF),
    "project_access_tokens.rotate": N("rotate project access token", "#{token_id}" + _OF),
    "project_access_tokens.revoke": N("revoke project access token", "#{token_id}" + _OF),
}


def field(data: Mapping[str, Any] | None, dotted: str) -> str | None:
    """`data`'s text or number at `dotted` (`references.full`), or None."""
    value: Any = data
    for part in dotted.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    if isinstance(value, bool) or value is None or value == "":
        return None
    return str(value) if isinstance(value, str | int) else None


def first_field(fields: tuple[str, ...], *sources: Mapping[str, Any] | None) -> str | None:
    """The first of `fields` found in the first source that has one."""
    for source in sources:
        for name in fields:
            found = field(source, name)
            if found is not None:
                return found
    return None


class _Names(dict[str, str]):
    """A template's values: a name nobody knows stays visible as its placeholder's word, never a crash."""

    def __missing__(self, key: str) -> str:
        return key.replace("_", " ")


def fill(template: str, names: Mapping[str, str]) -> str:
    """`template` with its placeholders replaced by `names` (server text inserted as it is: only the template
    is parsed)."""
    return template.format_map(_Names(names))


def _username(before: Mapping[str, Any] | None, answer: Mapping[str, Any] | None) -> str | None:
    return first_field(("username",), before, answer)


def _reference(before: Mapping[str, Any] | None, answer: Mapping[str, Any] | None) -> str | None:
    return first_field(("references.full",), before, answer)


def names_to_read(naming: Naming, values: Mapping[str, str], before: Mapping[str, Any] | None,
                  answer: Mapping[str, Any] | None) -> list[tuple[str, str]]:
    """The names `naming`'s target needs read (`("user", "17")`, `("repository", "2")`, `("project",
    "90")`) that what was read before the change and its answer do not give."""
    found: list[tuple[str, str]] = []
    if "{user}" in naming.target and "user_id" in values and _username(before, answer) is None:
        found.append(("user", values["user_id"]))
    if "{repository}" in naming.target and "repository_id" in values:
        found.append(("repository", values["repository_id"]))
    if "{forked_from}" in naming.target and "forked_from_id" in values:
        found.append(("project", values["forked_from_id"]))
    return found


def names_owner(naming: Naming, before: Mapping[str, Any] | None, answer: Mapping[str, Any] | None) -> bool:
    """Whether the target names its owner's path (an issue's own reference names its project)."""
    if "{owner}" in naming.target or "{owner}" in naming.it_else:
        return True
    return "{issue}" in naming.target and _reference(before, answer) is None


def said(naming: Naming, values: Mapping[str, str], owner: str | None, *,
         before: Mapping[str, Any] | None = None, answer: Mapping[str, Any] | None = None,
         sent: Mapping[str, Any] | None = None, names: Mapping[tuple[str, str], str] | None = None) -> str:
    """The target in words: `naming.target` filled from the request's segment `values`, the `owner`'s
    path (or its words, `group 61`, when it could not be read), what was read `before` the change, its
    `answer`, what was `sent` (only `naming.it` and `sent_names` fields) and the `names` read for it."""
    known = dict(names or {})
    words: dict[str, str] = {**values, "owner": owner or "the instance"}
    words.update({k: str(field(sent, k)) for k in naming.sent_names if field(sent, k) is not None})
    username = _username(before, answer) or known.get(("user", values.get("user_id", "")))
    words["user"] = f"@{username}" if username else f"user {values.get('user_id', '?')}"
    words["issue"] = _reference(before, answer) or f"{words['owner']}#{values.get('iid', '?')}"
    repository = values.get("repository_id", "")
    words["repository"] = (known.get(("repository", repository))
                           or f"registry repository {repository} of {words['owner']}")
    forked = values.get("forked_from_id", "")
    words["forked_from"] = known.get(("project", forked)) or f"project {forked}"
    it = first_field(naming.it, before, answer, sent)
    if it is None:
        words["it"] = fill(naming.it_else, words)
    else:
        words["it"] = f"#{it}" if naming.it == ("iid",) else it
    return fill(naming.target, words)
