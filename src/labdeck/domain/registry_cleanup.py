"""The container registry's bulk tag delete rules (GitLab's API docs, "Container registry").

Both the sandbox (to carry out `DELETE /projects/:id/registry/repositories/:repository_id/tags`) and the TUI
(to preview a cleanup before asking for it) use `plan`, so the preview is what the server does.

The rules, in GitLab's order:

1. A tag named `latest` is never deleted (reason `latest`).
2. Only tags whose name matches `name_regex_delete` (or its deprecated alias `name_regex`) are candidates
   (else `not matched`). Patterns are RE2, applied as GitLab applies them: the text is wrapped as
   `\\A<pattern>\\z`, so `v.*` must match the whole name. Like GitLab, the wrapping is textual, so a top-level
   alternation `a|b` means "starts with a, or ends with b".
3. A candidate matching `name_regex_keep` is kept (`keep pattern`): keep overrides delete.
4. With `keep_n`, the N newest remaining candidates by manifest creation time are kept (`among the N
   newest`); a tag without a creation time counts as newest, as in GitLab. Ties are broken by name.
5. With `older_than` (a calendar duration, see `durations.parse_calendar_duration`), only candidates
   created strictly before `now - older_than` are deleted; the others, and those without a creation time,
   are kept (`too new`).
6. The rest are deleted (`matched`).

Space freed is `registry_sizes`' one definition: the blobs no kept tag still references (a layer shared with
a kept tag stays; where only manifests are known, a manifest counts as one blob). GitLab frees them only at
the next garbage collection.

For interactive use (the TUI recomputes on every keystroke), build one `CleanupPlanner(tags)`: it sorts the
tags once, encodes the names once and caches each pattern's matches, so a recompute costs one pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from math import inf
from typing import Protocol

import re2

from labdeck.domain.durations import DurationError, parse_calendar_duration
from labdeck.domain.registry_sizes import Blob, BlobIndex, Figure

LATEST_TAG = "latest"
_CACHE_SIZE = 16


class RulesError(ValueError):
    """Cleanup rules that cannot be applied (bad pattern, bad keep_n, bad older_than)."""


class Decision(StrEnum):
    DELETE = "delete"
    KEEP = "keep"


class Reason(StrEnum):
    LATEST = "latest"
    NOT_MATCHED = "not matched"
    KEEP_PATTERN = "keep pattern"
    KEEP_N = "among the N newest"
    TOO_NEW = "too new"
    MATCHED = "matched"

    @property
    def decision(self) -> Decision:
        return Decision.DELETE if self is Reason.MATCHED else Decision.KEEP


@dataclass(frozen=True, slots=True)
class TagInfo:
    """A registry tag in detail form (what the rules need of it)."""

    name: str
    created_at: datetime | None
    digest: str | None = None
    total_size: int | None = None
    layers: tuple[Blob, ...] | None = None  # its manifest's layers (digest, size), when known


@dataclass(frozen=True, slots=True)
class CleanupRules:
    """The parameters of a bulk tag delete. `name_regex_delete` is required by the API."""

    name_regex_delete: str
    name_regex_keep: str | None = None
    keep_n: int | None = None
    older_than: str | None = None

    def errors(self) -> list[str]:
        """Every problem with these rules, as messages for the operator (empty when they can be applied)."""
        problems = []
        for label, pattern in (("name_regex_delete", self.name_regex_delete),
                               ("name_regex_keep", self.name_regex_keep)):
            if pattern is not None and (message := validate_pattern(pattern)) is not None:
                problems.append(f"{label}: {message}")
        if self.keep_n is not None and self.keep_n < 0:
            problems.append("keep_n must not be negative")
        if self.older_than is not None:
            try:
                parse_calendar_duration(self.older_than)
            except DurationError as error:
                problems.append(str(error))
        return problems


@dataclass(frozen=True, slots=True)
class TagDecision:
    tag: TagInfo
    reason: Reason
    keep_n: int | None = None

    @property
    def decision(self) -> Decision:
        return self.reason.decision

    def describe(self) -> str:
        """The reason as a sentence fragment, with N filled in (`among the 5 newest`)."""
        if self.reason is Reason.KEEP_N:
            return f"among the {self.keep_n} newest"
        return str(self.reason)


_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would otherwise write parse errors straight to file descriptor 2


def validate_pattern(pattern: str) -> str | None:
    """`None` when `pattern` is valid RE2 syntax, else a message saying what is wrong with it."""
    try:
        re2.compile(pattern, _OPTIONS)
        re2.compile(_anchored(pattern), _OPTIONS)
    except re2.error as error:
        detail = error.args[0] if error.args else ""
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        return f"invalid RE2 regular expression: {detail or pattern}"
    return None


def _anchored(pattern: str) -> str:
    return "\\A" + pattern + "\\z"


def tag_matches(pattern: str, name: str) -> bool:
    """Whether `name` matches `pattern` the way GitLab's cleanup applies it (`\\A<pattern>\\z`, RE2)."""
    return re2.search(_anchored(pattern), name, _OPTIONS) is not None


class CleanupPlan:
    """The outcome of the rules for every tag: a reason per tag (in the input order), counts and bytes."""

    __slots__ = ("counts", "cutoff", "deleted_count", "freed", "keep_n", "reasons", "tags")

    def __init__(self, tags: Sequence[TagInfo], reasons: list[Reason], keep_n: int | None,
                 cutoff: datetime | None, freed: Figure) -> None:
        self.tags = tags
        self.reasons = reasons
        self.keep_n = keep_n
        self.cutoff = cutoff
        self.freed = freed  # the blobs no kept tag uses (`registry_sizes`)
        self.counts: dict[Reason, int] = dict.fromkeys(Reason, 0)
        for reason in reasons:
            self.counts[reason] += 1
        self.deleted_count = self.counts[Reason.MATCHED]

    @property
    def kept_count(self) -> int:
        return len(self.reasons) - self.deleted_count

    @property
    def bytes_freed(self) -> int:
        return self.freed.bytes

    def decision(self, index: int) -> TagDecision:
        return TagDecision(self.tags[index], self.reasons[index], self.keep_n)

    def decisions(self) -> list[TagDecision]:
        pairs = zip(self.tags, self.reasons, strict=True)
        return [TagDecision(tag, reason, self.keep_n) for tag, reason in pairs]

    def to_delete(self) -> list[TagInfo]:
        return [tag for tag, reason in zip(self.tags, self.reasons, strict=True) if reason is Reason.MATCHED]

    def __repr__(self) -> str:
        return (f"CleanupPlan(tags={len(self.tags)}, delete={self.deleted_count}, keep={self.kept_count}, "
                f"freed={self.freed})")


class Dated(Protocol):
    """A tag as the orders read it (a `TagInfo`, or an API model of a tag)."""

    @property
    def name(self) -> str: ...

    @property
    def created_at(self) -> datetime | None: ...


def newest_first(tags: Sequence[Dated]) -> list[int]:
    """Tag indices newest first (no creation time counts as newest, as in the rules; ties by name): the
    order `CleanupPlanner.plan` ranks tags in."""
    keys = [(-_timestamp(tag.created_at), tag.name) for tag in tags]
    return sorted(range(len(tags)), key=keys.__getitem__)


def preview_order(plan: CleanupPlan, newest: Sequence[int] | None = None) -> list[int]:
    """The one order a preview lists tags in, the TUI's and `labdeck registry plan`'s alike: the tags to
    delete first, then the kept ones, each newest first (`newest`: `newest_first(plan.tags)`, when the
    caller keeps it across plans of the same tags)."""
    order = newest_first(plan.tags) if newest is None else newest
    reasons = plan.reasons
    deleted = [i for i in order if reasons[i] is Reason.MATCHED]
    return deleted + [i for i in order if reasons[i] is not Reason.MATCHED]


def _timestamp(value: datetime | None) -> float:
    if value is None:
        return inf
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.timestamp()


class CleanupPlanner:
    """Precomputed tags for fast repeated planning: sort order, encoded names, blobs, match cache."""

    def __init__(self, tags: Sequence[TagInfo]) -> None:
        self.tags = tuple(tags)
        self._times = [_timestamp(tag.created_at) for tag in self.tags]
        self._order = newest_first(self.tags)
        self._encoded = [tag.name.encode("utf-8") for tag in self.tags]
        self._latest = [tag.name == LATEST_TAG for tag in self.tags]
        self.blobs = BlobIndex(self.tags)
        self._cache: dict[str, bytearray] = {}

    def matches(self, pattern: str) -> bytearray:
        """One byte per tag: 1 when its name matches `pattern` as GitLab applies it. Cached per pattern."""
        return self._matches(pattern, anchored=True)

    def finds(self, pattern: str) -> bytearray:
        """One byte per tag: 1 when `pattern` occurs anywhere in its name (unanchored: protection rules)."""
        return self._matches(pattern, anchored=False)

    def _matches(self, pattern: str, *, anchored: bool) -> bytearray:
        key = pattern if anchored else "\x00" + pattern  # a NUL cannot start a pattern typed by anyone
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        if (message := validate_pattern(pattern)) is not None:
            raise RulesError(message)
        matcher = re2.Set.SearchSet(_OPTIONS)
        matcher.Add(_anchored(pattern) if anchored else pattern)
        matcher.Compile()
        # The wrapper's Match only adds a type check per call; the compiled set's own Match takes the
        # pre-encoded bytes directly and is measurably faster over 20,000 names.
        match = getattr(getattr(matcher, "_set", None), "Match", None) or matcher.Match
        result = bytearray(1 if match(name) else 0 for name in self._encoded)
        if len(self._cache) >= _CACHE_SIZE:
            self._cache.pop(next(iter(self._cache)))
        self._cache[key] = result
        return result

    def plan(self, rules: CleanupRules, now: datetime) -> CleanupPlan:
        """Apply `rules` at time `now`. Raises `RulesError` for rules that cannot be applied."""
        if rules.keep_n is not None and rules.keep_n < 0:
            raise RulesError("keep_n must not be negative")
        cutoff_dt: datetime | None = None
        cutoff = -inf  # no older_than: every remaining candidate is old enough
        if rules.older_than is not None:
            try:
                seconds = parse_calendar_duration(rules.older_than)
            except DurationError as error:
                raise RulesError(str(error)) from None
            now_ts = _timestamp(now)
            cutoff = now_ts - seconds
            cutoff_dt = datetime.fromtimestamp(cutoff, tz=UTC)
        delete = self.matches(rules.name_regex_delete)
        keep = self.matches(rules.name_regex_keep) if rules.name_regex_keep is not None else None
        keep_n = rules.keep_n if rules.keep_n is not None else 0
        older = rules.older_than is not None

        reasons: list[Reason] = [Reason.NOT_MATCHED] * len(self.tags)
        times = self._times
        latest = self._latest
        rank = 0
        deleted: list[int] = []
        for index in self._order:
            if latest[index]:
                reasons[index] = Reason.LATEST
            elif not delete[index]:
                continue
            elif keep is not None and keep[index]:
                reasons[index] = Reason.KEEP_PATTERN
            else:
                rank += 1
                if rank <= keep_n:
                    reasons[index] = Reason.KEEP_N
                elif older and not times[index] < cutoff:
                    reasons[index] = Reason.TOO_NEW
                else:
                    reasons[index] = Reason.MATCHED
                    deleted.append(index)
        return CleanupPlan(self.tags, reasons, rules.keep_n, cutoff_dt, self.blobs.freed(deleted))

    def newest_first(self) -> list[int]:
        """Tag indices newest first (no creation time counts as newest; ties by name), as `plan` ranks."""
        return list(self._order)

    def freed(self, deleted: list[int]) -> Figure:
        """What deleting the tags at these indices frees: the blobs no kept tag still references."""
        return self.blobs.freed(deleted)


def plan(tags: Sequence[TagInfo], rules: CleanupRules, now: datetime) -> CleanupPlan:
    """Apply the bulk delete `rules` to `tags` at time `now` (one-off; use `CleanupPlanner` to repeat)."""
    return CleanupPlanner(tags).plan(rules, now)


# -- deleting exactly what a preview listed -------------------------------------------------------------
# GitLab evaluates a bulk delete's rules when its job runs, not when it is asked: tags pushed in between
# shift `keep_n`, time moves `older_than`, and a pattern can match names the preview never showed. So
# labdeck never sends the preview's rules: it sends an alternation of the exact names (anchored by GitLab,
# each name escaped), or deletes tag by tag. GitLab also caps what one run deletes: the cleanup service
# samples at random `container_registry_cleanup_tags_service_max_list_size` (200 by default) of the
# matching tags (`third_party/cleanup_tags_service.rb#truncate`), so more names than that are never sent
# in one bulk request.
BULK_EXACT_MAX = 200
_BULK_PATTERN_MAX = 4000  # characters: the pattern travels in the query string


def escape_name(name: str) -> str:
    """`name` as an RE2 pattern matching that text only (every non-word character escaped)."""
    return "".join(ch if ch.isalnum() or ch == "_" else "\\" + ch if ch.isascii() else ch for ch in name)


def exact_rules(names: Sequence[str], *, max_names: int = BULK_EXACT_MAX) -> CleanupRules | None:
    """Bulk rules that can match only `names` (no `keep_n`, no `older_than`, no keep pattern), or None when
    one bulk request cannot carry them (too many for one run, a pattern too long for a URL, a name that is
    not plain text, or `latest`, which a bulk delete never removes)."""
    if not names or len(names) > max_names or LATEST_TAG in names:
        return None
    if any(not name or not name.isprintable() for name in names):
        return None
    pattern = "(?:" + "|".join(escape_name(name) for name in sorted(set(names))) + ")"
    if len(pattern) > _BULK_PATTERN_MAX or validate_pattern(pattern) is not None:
        return None
    return CleanupRules(name_regex_delete=pattern)


@dataclass(frozen=True, slots=True)
class Difference:
    """What a read-back found after deleting `asked`: names still there, and names gone that were not
    asked for (deleted by someone or something else meanwhile, or by rules that matched more)."""

    left: tuple[str, ...]
    extra: tuple[str, ...]

    @property
    def exact(self) -> bool:
        return not self.left and not self.extra


def difference(seen: Sequence[str] | set[str], asked: Sequence[str] | set[str],
               now: Sequence[str] | set[str]) -> Difference:
    """Compare the names `now` in the repository with the `seen` names the preview showed and the
    `asked` names it listed for deletion."""
    asked_set, now_set = set(asked), set(now)
    return Difference(left=tuple(sorted(asked_set & now_set)),
                      extra=tuple(sorted(set(seen) - asked_set - now_set)))
