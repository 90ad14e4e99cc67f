"""The issue filter language of the issues view, modelled on GitLab's search bar.

    label:bug -label:wontfix author:alice assignee:none milestone:"v2.0" state:opened confidential:true
    due:overdue type:incident "free text" iid:12 weight:3 reaction:thumbsup updated>2024-01-01
    created<2024-06-01 in:title

`parse(text) -> IssueQuery` reads it (terms with key, operator, value and negation; values may be quoted
with `"` and `\\` escapes), `format(query)` writes it back so that `parse(format(q)) == q`, and
`domain/issue_listing.compile(query, listing)` turns it into the query parameters of a listing. The keys
are listed in `KEYS`; `help_text()` describes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Final, Literal

Listing = Literal["global", "group", "project"]
GLOBAL: Final[Listing] = "global"
GROUP: Final[Listing] = "group"
PROJECT: Final[Listing] = "project"

TEXT: Final = ""  # key of free-text terms

# key -> (what it means, the operators it takes)
KEYS: Final[dict[str, tuple[str, str]]] = {
    "label": ("has the label (none, any, or a name)", ":"),
    "author": ("author's username", ":"),
    "author_id": ("author's user id", ":"),
    "assignee": ("assignee's username, or none / any", ":"),
    "assignee_id": ("assignee's user id", ":"),
    "milestone": ("milestone title, or none / any", ":"),
    "iteration": ("iteration title, or none / any", ":"),
    "state": ("opened, closed or all", ":"),
    "scope": ("created_by_me, assigned_to_me or all", ":"),
    "confidential": ("true or false", ":"),
    "due": ("overdue, week, month, next_month_and_previous_two_weeks, none", ":"),
    "type": ("issue, incident or test_case", ":"),
    "iid": ("internal id in its project", ":"),
    "weight": ("a number, or none / any", ":"),
    "reaction": ("an emoji you reacted with, or none / any", ":"),
    "created": ("created on or after (>) / on or before (<) a date", "<>"),
    "updated": ("updated on or after (>) / on or before (<) a date", "<>"),
    "in": ("where free text is searched: title, description or both", ":"),
}

_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "state": ("opened", "closed", "all"),
    "scope": ("created_by_me", "assigned_to_me", "all"),
    "confidential": ("true", "false"),
    "due": ("overdue", "week", "month", "next_month_and_previous_two_weeks", "none", "0"),
    "type": ("issue", "incident", "test_case"),
}
SPECIAL_VALUES: Final = ("none", "any")
_INTEGER_KEYS: Final = frozenset({"author_id", "assignee_id", "iid"})
_NUMBER = re.compile(r"[0-9]{1,18}")


class QueryError(ValueError):
    """A filter text that cannot be read, or a query a listing cannot express."""


@dataclass(frozen=True, slots=True)
class Term:
    """One filter: `key` (`TEXT` for free text), operator `:`, `<` or `>`, the value, and negation (`-`)."""

    key: str
    value: str
    negated: bool = False
    op: str = ":"


@dataclass(frozen=True, slots=True)
class IssueQuery:
    terms: tuple[Term, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.terms)

    def required_labels(self) -> tuple[str, ...]:
        """The labels every issue the query matches has (`label:bug label:ux`: `bug`, `ux`), once each;
        not those it excludes (`-label:`), nor `label:none` / `label:any`."""
        return tuple(dict.fromkeys(term.value for term in self.terms if term.key == "label"
                                   and not term.negated and term.value.lower() not in SPECIAL_VALUES))


# ---------------------------------------------------------------------------------------------- parse

_KEY_PREFIX = re.compile(r"([A-Za-z_]+)([:<>])")


def _read_quoted(text: str, start: int) -> tuple[str, int]:
    """Read a quoted string starting at the opening quote; return (value, index after the closing quote)."""
    out: list[str] = []
    pos = start + 1
    while pos < len(text):
        ch = text[pos]
        if ch == "\\" and pos + 1 < len(text):
            out.append(text[pos + 1])
            pos += 2
        elif ch == '"':
            end = pos + 1
            if end < len(text) and not text[end].isspace():
                raise QueryError(f"unexpected {text[end:].split()[0]!r} after a closing quote")
            return "".join(out), end
        else:
            out.append(ch)
            pos += 1
    raise QueryError(f"unclosed quote in {text[start:]!r}")


def _read_bare(text: str, start: int) -> tuple[str, int]:
    pos = start
    while pos < len(text) and not text[pos].isspace():
        if text[pos] == '"':
            raise QueryError(f"stray quote in {text[start:].split()[0]!r}: quote the whole value")
        pos += 1
    return text[start:pos], pos


_OR_WORDS: Final = frozenset({"OR", "||", "|"})
OR_EXPLANATION: Final = (
    "a listing cannot express OR: GitLab's issue listings match every filter at once (label:bug "
    "label:feature means both labels). Instead, save one view per alternative in [views] and open each "
    "from the palette, or list a wider set (label:any, or the shared label) and narrow it with / . "
    'To search for the word itself, quote it: "OR"')


def parse(text: str) -> IssueQuery:
    """Read a filter text. Raises `QueryError` with the reason for text that cannot be read."""
    terms: list[Term] = []
    pos = 0
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos >= len(text):
            break
        negated = False
        if text[pos] == "-" and pos + 1 < len(text) and not text[pos + 1].isspace():
            negated = True
            pos += 1
        if text[pos] == '"':
            value, pos = _read_quoted(text, pos)
            terms.append(_checked(Term(TEXT, value, negated)))
            continue
        prefix = _KEY_PREFIX.match(text, pos)
        if prefix is None:
            value, pos = _read_bare(text, pos)
            if value in _OR_WORDS and not negated:
                raise QueryError(OR_EXPLANATION)
            terms.append(_checked(Term(TEXT, value, negated)))
            continue
        key, op = prefix.group(1).lower(), prefix.group(2)
        pos = prefix.end()
        if pos < len(text) and text[pos] == '"':
            value, pos = _read_quoted(text, pos)
        else:
            value, pos = _read_bare(text, pos)
        terms.append(_checked(Term(key, value, negated, op)))
    return IssueQuery(tuple(terms))


def _checked(term: Term) -> Term:
    """Validate one term's key, operator and value; return it unchanged."""
    key, value = term.key, term.value
    if key == TEXT:
        if not value:
            raise QueryError("empty free text")
        return term
    if key not in KEYS:
        raise QueryError(f"unknown filter {key!r}; known filters: {', '.join(KEYS)} "
                         f"(quote free text that contains ':')")
    ops = KEYS[key][1]
    if term.op not in ops:
        wanted = " or ".join(f"{key}{op}" for op in ops)
        raise QueryError(f"{key}{term.op} is not a filter; use {wanted}")
    if not value:
        raise QueryError(f"{key}{term.op} needs a value")
    lowered = value.lower()
    if key in _CHOICES and lowered not in _CHOICES[key]:
        raise QueryError(f"{key}:{value} is not valid; use one of: {', '.join(_CHOICES[key])}")
    if key in _INTEGER_KEYS and not _NUMBER.fullmatch(value):
        raise QueryError(f"{key}:{value} is not valid; {key} takes a number")
    if key == "weight" and not (_NUMBER.fullmatch(value) or lowered in SPECIAL_VALUES):
        raise QueryError(f"weight:{value} is not valid; use a number, none or any")
    if key in ("created", "updated"):
        _check_date(term)
    if key == "in":
        parts = lowered.split(",")
        if not all(part in ("title", "description") for part in parts) or len(set(parts)) != len(parts):
            raise QueryError(f"in:{value} is not valid; use title, description or title,description")
    return term


def _check_date(term: Term) -> None:
    try:
        if len(term.value) == 10:
            date.fromisoformat(term.value)
        else:
            datetime.fromisoformat(term.value)
    except ValueError:
        raise QueryError(f"{term.key}{term.op}{term.value}: expected a date like 2024-01-31 "
                         f"or a time like 2024-01-31T12:00:00Z") from None


# --------------------------------------------------------------------------------------------- format

def _needs_quotes(value: str, free_text: bool) -> bool:
    if not value or any(ch.isspace() or ch in '"\\' for ch in value):
        return True
    return free_text and (value.startswith("-") or _KEY_PREFIX.match(value) is not None)


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def format_term(term: Term) -> str:
    free = term.key == TEXT
    value = _quoted(term.value) if _needs_quotes(term.value, free) else term.value
    prefix = "-" if term.negated else ""
    return f"{prefix}{value}" if free else f"{prefix}{term.key}{term.op}{value}"


def format(query: IssueQuery) -> str:
    """The filter text of `query`; `parse(format(query)) == query`."""
    return " ".join(format_term(term) for term in query.terms)


def help_text() -> str:
    """One line per filter key, for the view's help."""
    lines = [f"{key}{'>/<' if ops == '<>' else ':'}  {meaning}" for key, (meaning, ops) in KEYS.items()]
    lines.append('"free text"  searched in titles and descriptions; prefix any filter with - to negate it')
    return "\n".join(lines)


# -------------------------------------------------------------------------------------------- compile
