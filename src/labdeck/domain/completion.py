"""Completing names from the instance where an operator types them: which name is being typed, and how a
chosen one goes back into the text.

Three kinds of field take names:

- the issue filter (`domain.issue_query`): `label:bu`, `-label:"good fi`, `assignee:@al`, `author:al`,
  `milestone:"v1` (the value of the term the cursor is in);
- comma-separated lists in forms (`bug, fea`, `alice, @bo`): the item the cursor is in;
- a path (`acme/pla`): the whole text.

`filter_slot`, `list_slot` and `path_slot` give the `Slot` under the cursor (the kind of name, the prefix
typed, the span its value takes) or None where nothing can be completed. `splice` puts a chosen name in the
slot's place, quoted in a filter when the filter language needs it; `ghost` is the text an inline suggestion
shows (it can only add to the end of what was typed) and the text accepting it gives.

`unknown_candidates(query)` lists the names a parsed filter relies on (labels, users, milestones) so that the
screen can check them against the instance and say "no user called nosuchuser" instead of showing 0 rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, Literal

from labdeck.domain.issue_query import IssueQuery, Term, format_term

Kind = Literal["label", "milestone", "user", "project", "group", "path"]
Quoting = Literal["filter", "list", "plain"]

# filter key -> the kind of name its value is
FILTER_KINDS: Final[dict[str, Kind]] = {"label": "label", "author": "user", "assignee": "user",
                                        "milestone": "milestone"}
# values with a meaning of their own, never names to look up (GitLab's `None`, `Any`, `Upcoming`, `Started`)
SPECIAL_VALUES: Final[dict[Kind, frozenset[str]]] = {
    "label": frozenset({"none", "any"}),
    "user": frozenset({"none", "any"}),
    "milestone": frozenset({"none", "any", "upcoming", "started"}),
}
NOUNS: Final[dict[Kind, str]] = {"label": "label", "milestone": "milestone", "user": "user",
                                 "project": "project", "group": "group", "path": "project or group"}
_KEY: Final = re.compile(r"-?([A-Za-z_]+)([:<>])")


@dataclass(frozen=True, slots=True)
class Slot:
    """A name being typed: its `kind`, the `prefix` typed before the cursor (unquoted), and the span
    `start:end` its value takes in the text (from the opening quote when `quoted`; `end` is the end of the
    value, which may lie after the cursor). `key` is the filter key, empty outside filters."""

    kind: Kind
    prefix: str
    start: int
    end: int
    quoted: bool = False
    key: str = ""


def _token_at(text: str, cursor: int) -> tuple[int, int] | None:
    """The span of the whitespace-separated token (quotes keep spaces in) the cursor is in or ends."""
    pos, size = 0, len(text)
    while pos < size:
        if text[pos].isspace():
            pos += 1
            continue
        start, quoted = pos, False
        while pos < size and (quoted or not text[pos].isspace()):
            if quoted and text[pos] == "\\":
                pos += 2
                continue
            if text[pos] == '"':
                quoted = not quoted
            pos += 1
        end = min(pos, size)
        if start <= cursor <= end:
            return start, end
        if start > cursor:
            return None
    return None


def _unquote(raw: str) -> str:
    """The value of an opened (and perhaps closed) quote: escapes read, the closing quote dropped."""
    out: list[str] = []
    pos = 1
    while pos < len(raw):
        ch = raw[pos]
        if ch == "\\" and pos + 1 < len(raw):
            out.append(raw[pos + 1])
            pos += 2
            continue
        if ch == '"':
            break
        out.append(ch)
        pos += 1
    return "".join(out)


def filter_slot(text: str, cursor: int | None = None) -> Slot | None:
    """The name being typed in an issue filter at `cursor` (default: the end), or None: the cursor is in
    whitespace, in a key, in free text, or in the value of a key that takes no name."""
    cursor = len(text) if cursor is None else max(0, min(cursor, len(text)))
    span = _token_at(text, cursor)
    if span is None:
        return None
    start, end = span
    match = _KEY.match(text, start)
    if match is None or match.group(2) != ":" or match.group(1).lower() not in FILTER_KINDS:
        return None
    key = match.group(1).lower()
    kind = FILTER_KINDS[key]
    value_start = match.end()
    if kind == "user" and text.startswith("@", value_start) and cursor > value_start:
        value_start += 1
    if cursor < value_start:
        return None
    raw = text[value_start:cursor]
    quoted = raw.startswith('"')
    prefix = _unquote(raw) if quoted else raw
    if quoted and _closed(raw):
        return None  # the cursor is after a closing quote: this value is finished
    return Slot(kind, prefix, value_start, end, quoted, key)


def _closed(raw: str) -> bool:
    """Whether a value that opens with a quote has its closing quote in `raw`."""
    pos = 1
    while pos < len(raw):
        if raw[pos] == "\\":
            pos += 2
            continue
        if raw[pos] == '"':
            return True
        pos += 1
    return False


def list_slot(text: str, kind: Kind, cursor: int | None = None) -> Slot | None:
    """The item of a comma-separated list the cursor is in (leading spaces and a user's `@` skipped)."""
    cursor = len(text) if cursor is None else max(0, min(cursor, len(text)))
    start = text.rfind(",", 0, cursor) + 1
    found = text.find(",", cursor)
    end = len(text) if found < 0 else found
    while start < cursor and text[start].isspace():
        start += 1
    if kind == "user" and start < cursor and text[start] == "@":
        start += 1
    return Slot(kind, text[start:cursor], start, end)


def path_slot(text: str, kind: Kind = "path", cursor: int | None = None) -> Slot | None:
    """A path field: the whole text (leading spaces skipped) is the name; None while it is empty."""
    cursor = len(text) if cursor is None else max(0, min(cursor, len(text)))
    start = len(text) - len(text.lstrip())
    prefix = text[start:cursor]
    return Slot(kind, prefix, start, len(text)) if prefix.strip() else None


def _quoted(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def value_text(slot: Slot, name: str, quoting: Quoting) -> str:
    """How `name` is written in the slot: in a filter as the filter language writes it (quoted when it
    holds spaces or quotes, and always when the operator opened a quote), elsewhere as it is."""
    if quoting != "filter":
        return name
    if slot.quoted:
        return _quoted(name)
    written = format_term(Term(slot.key or "label", name))
    return written[written.index(":") + 1:]


def splice(text: str, slot: Slot, name: str, quoting: Quoting = "plain") -> tuple[str, int]:
    """`text` with `name` in the slot's place, and the cursor after it."""
    written = value_text(slot, name, quoting)
    return text[:slot.start] + written + text[slot.end:], slot.start + len(written)


def matches(prefix: str, name: str) -> bool:
    """Whether `name` completes `prefix` (case-insensitively, as GitLab's searches match)."""
    return name.casefold().startswith(prefix.casefold())


def best(prefix: str, names: list[str] | tuple[str, ...]) -> str | None:
    """The first of `names` that completes `prefix` and adds to it (None: none does)."""
    return next((n for n in names if matches(prefix, n) and len(n) > len(prefix)), None)


@dataclass(frozen=True, slots=True)
class Ghost:
    """An inline suggestion: `shown` extends the typed text (what the field draws after the cursor);
    `accepted` is the text accepting it gives (in a filter it may add quotes the suggestion cannot show)."""

    shown: str
    accepted: str


def ghost(text: str, slot: Slot, name: str, quoting: Quoting = "plain") -> Ghost | None:
    """The suggestion completing `slot` with `name`, or None when the slot does not end the text (an inline
    suggestion shows only at the end) or `name` does not complete the prefix."""
    if slot.end != len(text) or not matches(slot.prefix, name):
        return None
    accepted, _ = splice(text, slot, name, quoting)
    if slot.quoted:
        shown = text[:slot.start] + _quoted(name)
    else:
        shown = text[:slot.start] + name
    return Ghost(shown, accepted)


@dataclass(frozen=True, slots=True)
class Named:
    """A name a filter relies on: its kind, the name, and the term as typed (for the message)."""

    kind: Kind
    name: str
    term: str


def names_in(query: IssueQuery) -> list[Named]:
    """The labels, users and milestones a filter names (special values such as `none` left out), once
    each, in order."""
    seen: set[tuple[Kind, str]] = set()
    out: list[Named] = []
    for term in query.terms:
        kind = FILTER_KINDS.get(term.key)
        if kind is None or term.op != ":":
            continue
        name = term.value[1:] if kind == "user" and term.value.startswith("@") else term.value
        if not name or name.lower() in SPECIAL_VALUES[kind] or (kind, name) in seen:
            continue
        seen.add((kind, name))
        out.append(Named(kind, name, format_term(term)))
    return out


def unknown_text(missing: list[Named], where: str) -> str:
    """`no user called nosuchuser; no label called bgu in acme: no issue can match`, literal text."""
    parts = [f"no {NOUNS[n.kind]} called {n.name}" + ("" if n.kind == "user" else f" in {where}")
             for n in missing]
    ending = "no issue can match" if any(not n.term.startswith("-") for n in missing) else "check the name"
    return "; ".join(parts) + f": {ending}"
