"""The issue filter language compiled to a listing's query parameters: `compile(query, listing)` turns a
parsed `IssueQuery` (`domain/issue_query.py`) into the parameters of `GET /issues` (`GLOBAL`),
`GET /groups/:id/issues` (`GROUP`) or `GET /projects/:id/issues` (`PROJECT`) per GitLab's API docs, raising
`QueryError` with a clear message for what that listing cannot express (`NOT_KEYS`: the negations each
listing takes).
"""

from __future__ import annotations

from typing import Any, Final

from labdeck.domain.issue_query import (
    GLOBAL,
    GROUP,
    PROJECT,
    SPECIAL_VALUES,
    TEXT,
    IssueQuery,
    Listing,
    QueryError,
    Term,
    format_term,
)

# Negated keys each listing's `not[...]` accepts (GitLab's API docs, Issues, parameter `not`).
NOT_KEYS: Final[dict[Listing, frozenset[str]]] = {
    GLOBAL: frozenset({"assignee_id", "assignee_username", "author_id", "author_username", "iids",
                       "iteration_id", "iteration_title", "labels", "milestone", "weight"}),
    GROUP: frozenset({"labels", "milestone", "author_id", "author_username", "assignee_id",
                      "assignee_username", "my_reaction_emoji", "search", "in"}),
}
NOT_KEYS[PROJECT] = NOT_KEYS[GROUP]  # the project listing takes the group listing's `not` (GitLab's docs)

_LISTING_NAMES: Final[dict[Listing, str]] = {GLOBAL: "GET /issues", GROUP: "the group issue listing",
                                             PROJECT: "the project issue listing"}


def _special(value: str) -> str | None:
    lowered = value.lower()
    return lowered.capitalize() if lowered in SPECIAL_VALUES else None


def _opposite(special: str) -> str:
    return "Any" if special == "None" else "None"


def _use_opposite(term: Term) -> QueryError:
    """The error for negating none/any where the listing needs the positive form instead."""
    other = _opposite(_special(term.value) or "").lower()
    return QueryError(f"{format_term(term)}: use {term.key}:{other} instead")


class _Builder:
    """Collects parameters for one listing and refuses conflicting or unsupported ones."""

    def __init__(self, listing: Listing) -> None:
        if listing not in NOT_KEYS:
            raise QueryError(f"unknown issue listing {listing!r}")
        self.listing = listing
        self.params: dict[str, Any] = {}
        self.negated: dict[str, Any] = {}
        self.sources: dict[str, str] = {}

    def set(self, param: str, value: Any, term: Term, exclusive_with: tuple[str, ...] = ()) -> None:
        shown = format_term(term)
        for other in exclusive_with:
            if other in self.params:
                raise QueryError(f"{shown} cannot be combined with {self.sources[other]}")
        if param in self.params and self.params[param] != value:
            raise QueryError(f"{shown} conflicts with {self.sources[param]}: the listing takes one {param}")
        self.params[param] = value
        self.sources[param] = shown

    def set_not(self, param: str, value: Any, term: Term) -> None:
        if param not in NOT_KEYS[self.listing]:
            raise QueryError(f"{format_term(term)}: {_LISTING_NAMES[self.listing]} cannot negate {term.key}")
        if param in self.negated and self.negated[param] != value:
            raise QueryError(f"{format_term(term)} conflicts with another negated {term.key}")
        self.negated[param] = value


def compile(query: IssueQuery, listing: Listing) -> dict[str, Any]:
    """Query parameters of `listing` (`GLOBAL`, `GROUP` or `PROJECT`) for `query`.

    Lists are meant to be sent as `key[]=v` and the `not` dict as `not[key]=v`. Raises `QueryError` for
    what the listing cannot express: two authors, two milestones, an id and a username for the same person,
    negating a key that the listing's `not` does not accept, a label containing a comma, `in:` on the group
    listing.
    """
    b = _Builder(listing)
    labels: list[str] = []
    not_labels: list[str] = []
    iids: list[int] = []
    not_iids: list[int] = []
    search: list[str] = []
    not_search: list[str] = []
    for term in query.terms:
        key, value = term.key, term.value
        if key == TEXT:
            (not_search if term.negated else search).append(value)
        elif key == "label":
            _label(term, labels, not_labels)
        elif key == "iid":
            (not_iids if term.negated else iids).append(int(value))
        else:
            _compile_term(b, term)
    if labels:
        specials = {label for label in labels if _special(label)}
        if specials and len(set(labels)) > 1:
            raise QueryError("label:none / label:any cannot be combined with other labels")
        b.params["labels"] = _special(labels[0]) if specials else ",".join(dict.fromkeys(labels))
    if not_labels:
        b.set_not("labels", ",".join(dict.fromkeys(not_labels)), Term("label", not_labels[0], True))
    if iids:
        b.params["iids"] = list(dict.fromkeys(iids))
    if not_iids:
        b.set_not("iids", list(dict.fromkeys(not_iids)), Term("iid", str(not_iids[0]), True))
    if search:
        b.params["search"] = " ".join(search)
    if not_search:
        b.set_not("search", " ".join(not_search), Term(TEXT, not_search[0], True))
    if "in" in b.params and "search" not in b.params:
        raise QueryError(f"{b.sources['in']} needs free text to search for")
    if b.negated:
        b.params["not"] = b.negated
    return b.params


def _label(term: Term, labels: list[str], not_labels: list[str]) -> None:
    if "," in term.value:
        raise QueryError(f"{format_term(term)}: label names containing a comma cannot be filtered on")
    if term.negated:
        if _special(term.value):
            raise _use_opposite(term)
        not_labels.append(term.value)
    else:
        labels.append(term.value)


def _compile_term(b: _Builder, term: Term) -> None:
    key, value, neg = term.key, term.value, term.negated
    lowered = value.lower()
    if key in ("author", "assignee") and value.startswith("@"):
        value = value[1:]
    if key == "author":
        if neg:
            b.set_not("author_username", value, term)
        else:
            b.set("author_username", value, term, exclusive_with=("author_id",))
    elif key == "author_id":
        if neg:
            b.set_not("author_id", int(value), term)
        else:
            b.set("author_id", int(value), term, exclusive_with=("author_username",))
    elif key == "assignee":
        special = _special(value)
        if special and neg:
            b.set("assignee_id", _opposite(special), term, exclusive_with=("assignee_username",))
        elif special:
            b.set("assignee_id", special, term, exclusive_with=("assignee_username",))
        elif neg:
            b.set_not("assignee_username", value, term)
        else:
            b.set("assignee_username", value, term, exclusive_with=("assignee_id",))
    elif key == "assignee_id":
        if neg:
            b.set_not("assignee_id", int(value), term)
        else:
            b.set("assignee_id", int(value), term, exclusive_with=("assignee_username",))
    elif key == "milestone":
        special = _special(value)
        if neg and special:
            b.set("milestone", _opposite(special), term)
        elif neg:
            b.set_not("milestone", value, term)
        else:
            b.set("milestone", special or value, term)
    elif key == "iteration":
        _iteration(b, term)
    elif key == "weight":
        special = _special(value)
        if neg:
            if special:
                raise _use_opposite(term)
            b.set_not("weight", int(value), term)
        else:
            b.set("weight", special or int(value), term)
    elif key == "reaction":
        special = _special(value)
        if neg:
            if special:
                raise _use_opposite(term)
            b.set_not("my_reaction_emoji", value, term)
        else:
            b.set("my_reaction_emoji", special or value, term)
    elif key == "confidential":
        flag = (lowered == "true") != neg
        b.set("confidential", "true" if flag else "false", term)
    elif key in ("created", "updated"):
        if neg:
            other = "<" if term.op == ">" else ">"
            raise QueryError(f"{format_term(term)}: dates cannot be negated; use {key}{other}")
        b.set(f"{key}_{'after' if term.op == '>' else 'before'}", value, term)
    elif key == "in":
        if neg:
            b.set_not("in", lowered, term)
        elif b.listing != GLOBAL:
            raise QueryError(f"{format_term(term)}: {_LISTING_NAMES[b.listing]} has no in parameter")
        else:
            b.set("in", lowered, term)
    else:  # state, scope, due, type: plain choices that no listing can negate
        if neg:
            raise QueryError(f"{format_term(term)}: {_LISTING_NAMES[b.listing]} cannot negate {key}")
        param = {"type": "issue_type", "due": "due_date"}.get(key, key)
        b.set(param, "0" if key == "due" and lowered == "none" else lowered, term)


def _iteration(b: _Builder, term: Term) -> None:
    special = _special(term.value)
    if special:
        if term.negated:
            raise _use_opposite(term)
        b.set("iteration_id", special, term, exclusive_with=("iteration_title",))
    elif term.negated:
        b.set_not("iteration_title", term.value, term)
    else:
        b.set("iteration_title", term.value, term, exclusive_with=("iteration_id",))
