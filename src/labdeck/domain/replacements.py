"""What a change replaces, in words, said before the change is confirmed (issue 33): a bulk "Assign to
alice" over issues assigned to bob says "replaces bob on 3 issues"; a member's new role "replaces Developer
(30)"; a deploy rule change, which rewrites an environment's rules as a whole, "replaces Maintainers and
alice with Maintainers". Every confirmation and form that writes over something takes its words from here.

Values are names as the operator reads them (usernames, labels, roles, rules): shown in their visible form
(`text.sanitize_line`, so a hidden character cannot make one name pass for another) and compared without
case (GitLab's usernames, labels and roles are not case-sensitive). The text is plain: put it in a
`Content`, never in markup.
"""

from __future__ import annotations

from collections.abc import Iterable

from labdeck.domain.text import sanitize_line

GROUPS_SHOWN = 3  # groups of values named before "and N more"


def _names(values: Iterable[str]) -> str:
    shown = [sanitize_line(value) for value in values]
    return ", ".join(shown[:-1]) + f" and {shown[-1]}" if len(shown) > 1 else "".join(shown)


def _counted(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'' if count == 1 else 's'}"


def replaced_text(befores: Iterable[Iterable[str]], after: Iterable[str], *, noun: str | None = None,
                  whole: bool = False) -> str:
    """What giving `after` to every target replaces, or "" when it replaces nothing. `befores` holds, per
    target, its values now.

    By value (the default): the values each target loses, grouped, the largest group first: "replaces bob
    on 3 issues", "replaces bob on 2 issues, carol and dave on 1 issue"; with one target and no `noun`,
    "replaces Developer (30)". `whole`: one target whose set is replaced as a whole (an environment's
    deploy rules), said with what comes instead: "replaces Maintainers and alice with Maintainers"."""
    kept = {value.casefold() for value in after}
    after = list(after)
    groups: dict[frozenset[str], tuple[tuple[str, ...], int]] = {}  # what is lost -> (as first named, count)
    changed: list[list[str]] = []
    for before in befores:
        values = list(before)
        lost = tuple(value for value in values if value.casefold() not in kept)
        if whole and (lost or len(values) != len(after)):
            changed.append(values)
        elif not whole and lost:
            key = frozenset(value.casefold() for value in lost)
            named, count = groups.get(key, (lost, 0))
            groups[key] = (named, count + 1)
    if whole:
        return "; ".join(f"replaces {_names(values) or 'nothing'} with {_names(after) or 'nothing'}"
                         for values in changed)
    if not groups:
        return ""
    ordered = sorted(groups.values(), key=lambda item: -item[1])  # (stable: first met first among equals)
    parts = [_names(lost) + (f" on {_counted(count, noun)}" if noun else "") for lost, count in ordered]
    more = len(parts) - GROUPS_SHOWN
    text = ", ".join(parts[:GROUPS_SHOWN]) + (f" and {more} more" if more > 0 else "")
    return f"replaces {text}"
