"""Which CI/CD variable definition a job gets where several define the same key (issue 36), GitLab's rules:

- By level (`doc/ci/variables/_index.md`, "CI/CD variable precedence"): a project's variables over its
  groups', the nearest group over the ones above it ("the job uses the value from the closest
  subgroup"), groups over the instance's. GitLab builds the list that way, farthest first, and the last
  definition of a key wins (`lib/gitlab/ci/variables/builder/group.rb`: `list_of_ids.reverse.flat_map`).
- Inside one project or group, by environment scope (`app/models/concerns/has_environment_scope.rb`,
  `on_environment`): a scope applies to an environment when it is `*`, the environment's name, or a
  pattern where `*` stands for any run of characters (`review/*`: SQL `LIKE` with `*` as `%`, so `_` and
  `%` are literal, and case counts); of those, the environment's exact name wins over a pattern, and a
  pattern over `*`. GitLab does not order two patterns that both apply; labdeck takes the later one in the
  listing (the one created last), and says so.
- A protected variable is given to jobs on protected branches and tags only (`variables.unprotected
  unless protected_ref`): on an unprotected ref the next definition down wins.
- Instance variables have no environment scope (every environment).

A definition "wins" when some job gets it: a project below its owner, an environment and a ref kind where
it is the one applied. The environments asked about are those the definitions name: each exact scope,
each pattern with `*` standing for text no environment name holds, and one environment no scope names.
A group or the instance with no project below it in the review has no job to give a definition to: its
definitions win (nothing overrides them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Final, Literal

Level = Literal["instance", "group", "project"]
WILDCARD: Final = "*"
_UNNAMED: Final = "\x00"  # stands for text no environment name holds (names are checked by GitLab's regex)
_LEVEL_ORDER: Final[dict[str, int]] = {"instance": 0, "group": 1, "project": 2}


@dataclass(frozen=True)
class Definition:
    """One variable as the review knows it: where it is defined and its flags, never its value. `path` is
    the group's or project's full path ("" for the instance); `order`: its place in its owner's listing
    (GitLab lists by creation), which breaks a tie between two patterns."""

    key: str
    level: Level
    path: str
    environment_scope: str = WILDCARD
    protected: bool = False
    masked: bool = False
    hidden: bool = False
    raw: bool = False
    variable_type: str = "env_var"
    order: int = field(default=0, compare=False)

    @property
    def where(self) -> str:
        return "the instance" if self.level == "instance" else self.path

    @property
    def flags(self) -> tuple[bool, bool, bool, bool]:
        """protected, masked, hidden, raw: what two definitions of one key are compared by."""
        return self.protected, self.masked, self.hidden, self.raw


@lru_cache(maxsize=4096)
def _pattern(scope: str) -> re.Pattern[str]:
    return re.compile("".join(".*" if part == WILDCARD else re.escape(part)
                              for part in re.split(r"(\*)", scope)), re.DOTALL)


def scope_matches(scope: str, environment: str) -> bool:
    """Whether a definition of `scope` applies to a job deploying to `environment`."""
    scope = scope.strip() or WILDCARD
    if scope in (WILDCARD, environment):
        return True
    return WILDCARD in scope and _pattern(scope).fullmatch(environment) is not None


def scope_rank(scope: str, environment: str) -> int:
    """How specific a matching scope is for `environment`: 2 its exact name, 1 a pattern, 0 `*`."""
    scope = scope.strip() or WILDCARD
    if scope == WILDCARD:
        return 0
    return 2 if scope == environment else 1


def _applies_to(definition: Definition, project: str) -> bool:
    if definition.level == "instance":
        return True
    if definition.level == "project":
        return definition.path == project
    return project.startswith(definition.path + "/")


def _nearness(definition: Definition) -> tuple[int, int]:
    """Higher is nearer the job: project, then the deeper group, then the instance."""
    return _LEVEL_ORDER[definition.level], definition.path.count("/") if definition.level == "group" else 0


def applied(definitions: Iterable[Definition], project: str, environment: str,
            protected_ref: bool = False) -> Definition | None:
    """The definition of one key a job of `project` (full path) deploying to `environment` gets, on a
    protected ref or not; None when none applies. `definitions` are one key's."""
    best: Definition | None = None
    best_rank: tuple[int, int, int, int] | None = None
    for definition in definitions:
        if definition.protected and not protected_ref:
            continue
        if not _applies_to(definition, project) or not scope_matches(definition.environment_scope,
                                                                    environment):
            continue
        rank = (*_nearness(definition), scope_rank(definition.environment_scope, environment),
                definition.order)
        if best_rank is None or rank > best_rank:
            best, best_rank = definition, rank
    return best


def environments_named(scopes: Iterable[str]) -> list[str]:
    """The environments asked about for these scopes: each exact name, each pattern with its `*` made text
    no name holds (what only that pattern, and those wider than it, match), and one no scope names."""
    found = {_UNNAMED}
    for scope in scopes:
        scope = scope.strip() or WILDCARD
        found.add(scope.replace(WILDCARD, _UNNAMED) if WILDCARD in scope else scope)
    return sorted(found)


def winners(definitions: Sequence[Definition], projects: Iterable[str]) -> set[Definition]:
    """The definitions (of any keys) some job gets, for jobs of `projects` (full paths), every environment
    the scopes name and both kinds of ref; a group's or the instance's definition with no project below it
    wins (nothing overrides it)."""
    by_key: dict[str, list[Definition]] = {}
    for definition in definitions:
        by_key.setdefault(definition.key, []).append(definition)
    project_list = list(projects)
    won: set[Definition] = set()
    for same in by_key.values():
        environments = environments_named(d.environment_scope for d in same)
        reached: set[Definition] = set()
        for project in project_list:
            candidates = [d for d in same if _applies_to(d, project)]
            if not candidates:
                continue
            reached.update(candidates)
            for environment in environments:
                for protected_ref in (False, True):
                    found = applied(candidates, project, environment, protected_ref)
                    if found is not None:
                        won.add(found)
        won.update(d for d in same if d.level != "project" and d not in reached)
    return won


def pattern_ties(definitions: Sequence[Definition]) -> set[Definition]:
    """Definitions of one key and owner whose patterns both apply to some environment, where GitLab does not
    say which wins (labdeck takes the later one)."""
    by_owner: dict[tuple[str, str, str], list[Definition]] = {}
    for definition in definitions:
        scope = definition.environment_scope.strip() or WILDCARD
        if WILDCARD in scope and scope != WILDCARD:
            by_owner.setdefault((definition.key, definition.level, definition.path), []).append(definition)
    tied: set[Definition] = set()
    for same in by_owner.values():
        for i, one in enumerate(same):
            for other in same[i + 1:]:
                if patterns_meet(one.environment_scope.strip(), other.environment_scope.strip()):
                    tied.update((one, other))
    return tied


def patterns_meet(one: str, other: str) -> bool:
    """Whether some environment name matches both scopes (`*` any run of characters, the rest literal):
    `review/*` and `*/app` meet (`review/app`), `review/*` and `staging/*` do not."""

    @cache
    def meet(i: int, j: int) -> bool:
        a = one[i] if i < len(one) else None
        b = other[j] if j < len(other) else None
        if a is None and b is None:
            return True
        if a == WILDCARD:  # the star stands for nothing, or takes the other's next character (or star)
            return meet(i + 1, j) or (b is not None and meet(i, j + 1))
        if b == WILDCARD:
            return meet(i, j + 1) or (a is not None and meet(i + 1, j))
        return a is not None and a == b and meet(i + 1, j + 1)

    return meet(0, 0)
