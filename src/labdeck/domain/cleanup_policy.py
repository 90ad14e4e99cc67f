"""The container registry cleanup policy that GitLab runs by itself: its allowed values, GitLab's validation,
and an exact simulation of the next run on one repository (what it deletes, what it keeps and why).

The run, as GitLab's `ContainerExpirationPolicies::CleanupService` and the third-party
`Projects::ContainerRepository::CleanupTagsService` (with `CleanupTagsBaseService`) carry it out:

1. `latest` is never deleted (`keep_latest` is always on for policies).
2. Candidates are the tags whose name matches `name_regex` (anchored `\\A...\\z`, RE2; a policy without
   `name_regex` matches no tag) and not `name_regex_keep` (keep wins).
3. The per-run limit: when there are more candidates than `max_list_size + keep_n`
   (`container_registry_cleanup_tags_service_max_list_size`, 200 by default, 0 for no limit), the run takes a
   random sample of that many; the repository is left `cleanup_unfinished` and further runs follow.
4. Newest first by manifest creation date (a tag without one counts as newest), the `keep_n` newest are
   kept. GitLab's order among equal dates is unspecified: `ties` names the tags where that decides.
5. With `older_than`, only tags created strictly before `now - older_than` go; a tag without a creation
   date is kept (`no creation date`).
6. Tags matching a protection rule (`container_registry_protection_tag_rules` with a delete level;
   unanchored RE2, as `DeleteTagsService#filter_out_protected!`) are kept. They count towards `keep_n`.
7. The rest are deleted. Space freed is the blobs no kept tag still uses (`registry_sizes`, as the bulk
   preview counts it).

With GitLab's own registry (the metadata database), `gitlab/cleanup_tags_service.rb` runs instead: it walks
the tags in pages of 1,000 (`TAGS_PAGE_SIZE`, name order) and applies the rules, keep_n included, to each page
on its own; a run is bounded by time (`container_registry_delete_tags_service_timeout`), not by count.
`PolicyPlanner(tags, page_size=GITLAB_REGISTRY_PAGE)` simulates that.

Whatever the sample, a run only deletes tags the full simulation deletes (the overall `keep_n` newest are
always among a sample's newest), so over its runs a policy deletes exactly `RepositoryPlan.to_delete()`.
The sandbox runs due policies with `run_once`, the same rules.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Final

from labdeck.domain.capabilities import Capabilities
from labdeck.domain.durations import parse_calendar_duration
from labdeck.domain.features import CLEANUP_OLDER_THAN_60D, Feature
from labdeck.domain.kept_values import changed
from labdeck.domain.registry_cleanup import CleanupPlanner, CleanupRules, Reason, TagInfo, validate_pattern
from labdeck.domain.registry_sizes import Figure

# GitLab's `cadence_options`, `keep_n_options` and `older_than_options` (app/models/
# container_expiration_policy.rb); `60d` came in 14.4 (commit c7be549c), the feature named beside it.
CADENCES: Final = ("1d", "7d", "14d", "1month", "3month")
KEEP_N_VALUES: Final = (1, 5, 10, 25, 50, 100)
OLDER_THAN_VALUES: Final = ("7d", "14d", "30d", "60d", "90d")
OLDER_THAN_FEATURES: Final[dict[str, Feature]] = {"60d": CLEANUP_OLDER_THAN_60D}
DEFAULT_MAX_LIST_SIZE: Final = 200
GITLAB_REGISTRY_PAGE: Final = 1000
NOT_INCLUDED: Final = "is not included in the list"
BLANK: Final = "can't be blank"
EDITABLE: Final = ("enabled", "cadence", "keep_n", "older_than", "name_regex", "name_regex_keep")


@dataclass(frozen=True, slots=True)
class Policy:
    """A project's `container_expiration_policy` (GitLab's defaults for a new project)."""

    enabled: bool = False
    cadence: str = "1d"
    keep_n: int | None = 10
    older_than: str | None = "90d"
    name_regex: str | None = ".*"
    name_regex_keep: str | None = None
    next_run_at: datetime | None = None

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Policy:
        """Read the API's object; values of the wrong type are kept as text so `errors()` reports them."""
        keep_n = data.get("keep_n")
        next_run = data.get("next_run_at")
        if isinstance(next_run, str):
            try:
                next_run = datetime.fromisoformat(next_run.replace("Z", "+00:00"))
            except ValueError:
                next_run = None
        return cls(enabled=data.get("enabled") is True, cadence=str(data.get("cadence") or ""),
                   keep_n=keep_n if isinstance(keep_n, int) and not isinstance(keep_n, bool) else None,
                   older_than=_text(data.get("older_than")), name_regex=_text(data.get("name_regex")),
                   name_regex_keep=_text(data.get("name_regex_keep")),
                   next_run_at=next_run if isinstance(next_run, datetime) else None)

    def attributes(self) -> dict[str, Any]:
        """`container_expiration_policy_attributes` for `PUT /projects/:id` (every editable value)."""
        return {name: getattr(self, name) for name in EDITABLE}

    def changed_attributes(self, loaded: Policy | None) -> dict[str, Any]:
        """The attributes a save of this edit of `loaded` sends: the values that differ from it (every value
        when nothing was loaded). A value the operator did not change is not sent, so the instance keeps it
        as it holds it, whether labdeck knows it or not."""
        return self.attributes() if loaded is None else changed(loaded.attributes(), self.attributes())

    def same_settings(self, other: Policy) -> bool:
        """Whether the editable values agree (`next_run_at` aside: every save moves it)."""
        return self.attributes() == other.attributes()

    def errors(self, *, older_than: Sequence[str] = OLDER_THAN_VALUES,
               kept: Policy | None = None) -> dict[str, list[str]]:
        """GitLab's model validation (`app/models/container_expiration_policy.rb`), its messages by
        attribute; empty when GitLab would accept the policy. `older_than`: the values the instance accepts
        (`older_than_values(version)`). `kept`: the policy as the instance holds it; a value still as it
        was loaded is the instance's own (a newer GitLab's, perhaps) and not held to labdeck's lists."""
        problems: dict[str, list[str]] = {}

        def listed(name: str, allowed: Sequence[Any]) -> bool:
            value = getattr(self, name)
            return value in allowed or (kept is not None and getattr(kept, name) == value)

        if not self.cadence:
            problems.setdefault("cadence", []).append(BLANK)
        if not listed("cadence", CADENCES):
            problems.setdefault("cadence", []).append(NOT_INCLUDED)
        if self.older_than is not None and not listed("older_than", older_than):
            problems["older_than"] = [NOT_INCLUDED]
        if self.keep_n is not None and not listed("keep_n", KEEP_N_VALUES):
            problems["keep_n"] = [NOT_INCLUDED]
        if self.enabled:  # `presence: true, if: :enabled?`, then `untrusted_regexp: true, if: :enabled?`
            if not (self.name_regex or "").strip():  # Rails' `blank?`: nil, empty or only spaces
                problems["name_regex"] = [BLANK]
            for name in ("name_regex", "name_regex_keep"):
                pattern = getattr(self, name)
                if pattern is not None and (message := validate_pattern(pattern)) is not None:
                    detail = message.removeprefix("invalid RE2 regular expression: ")
                    problems.setdefault(name, []).append(f"not valid RE2 syntax: {detail}")
        return problems

    def cadence_seconds(self) -> int | None:
        return parse_calendar_duration(self.cadence) if self.cadence in CADENCES else None


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def older_than_values(version: tuple[int, int, int] | None = None) -> tuple[str, ...]:
    """The `older_than` values GitLab of `version` accepts (`60d` from 14.4); every one when the version is
    not known (nothing known, nothing held back)."""
    capabilities = Capabilities(version=version)
    needed = {value: OLDER_THAN_FEATURES.get(value) for value in OLDER_THAN_VALUES}
    return tuple(value for value, feature in needed.items()
                 if feature is None or capabilities.supports(feature) is None)


def policy_errors_text(errors: Mapping[str, list[str]]) -> str:
    """One line in GitLab's words: `keep_n is not included in the list, cadence can't be blank`."""
    return ", ".join(f"{name} {message}" for name, messages in errors.items() for message in messages)


class PolicyReason(StrEnum):
    LATEST = "latest"
    NOT_MATCHED = "not matched"
    KEEP_PATTERN = "keep pattern"
    KEEP_N = "among the N newest"
    NO_DATE = "no creation date"
    TOO_NEW = "too new"
    PROTECTED = "protected"
    DELETE = "deleted"

    @property
    def deleted(self) -> bool:
        return self is PolicyReason.DELETE


_FROM_BULK: Final = {Reason.LATEST: PolicyReason.LATEST, Reason.NOT_MATCHED: PolicyReason.NOT_MATCHED,
                     Reason.KEEP_PATTERN: PolicyReason.KEEP_PATTERN, Reason.KEEP_N: PolicyReason.KEEP_N,
                     Reason.TOO_NEW: PolicyReason.TOO_NEW, Reason.MATCHED: PolicyReason.DELETE}
_CANDIDATE: Final = frozenset({PolicyReason.KEEP_N, PolicyReason.NO_DATE, PolicyReason.TOO_NEW,
                               PolicyReason.PROTECTED, PolicyReason.DELETE})


@dataclass(frozen=True, slots=True)
class RepositoryPlan:
    """What the policy does to one repository over its runs, and what its next run is bound by."""

    tags: Sequence[TagInfo]
    reasons: list[PolicyReason]
    keep_n: int | None
    max_list_size: int
    freed: Figure  # the blobs no kept tag uses (`registry_sizes`)
    ties: tuple[str, ...] = ()
    counts: dict[PolicyReason, int] = field(default_factory=dict)

    @property
    def candidates(self) -> int:
        """Tags left after `latest` and the name patterns: what the per-run limit counts."""
        return sum(self.counts.get(reason, 0) for reason in _CANDIDATE)

    @property
    def deleted_count(self) -> int:
        return self.counts.get(PolicyReason.DELETE, 0)

    @property
    def bytes_freed(self) -> int:
        return self.freed.bytes

    @property
    def truncated(self) -> bool:
        """Whether the next run works on a random sample (more candidates than the limit plus keep_n)."""
        return self.max_list_size > 0 and self.candidates > self.max_list_size + (self.keep_n or 0)

    @property
    def first_run_bound(self) -> int:
        """At most this many tags go in the next run."""
        return min(self.deleted_count, self.max_list_size) if self.truncated else self.deleted_count

    @property
    def runs(self) -> int:
        """The fewest runs that delete everything (1 when nothing is to be deleted: the run still happens)."""
        if not self.truncated or self.deleted_count == 0:
            return 1
        return max(1, math.ceil(self.deleted_count / self.max_list_size))

    def describe(self, index: int) -> str:
        reason = self.reasons[index]
        if reason is PolicyReason.KEEP_N:
            return f"among the {self.keep_n} newest"
        return str(reason)

    def to_delete(self) -> list[TagInfo]:
        return [tag for tag, reason in zip(self.tags, self.reasons, strict=True) if reason.deleted]


class PolicyPlanner:
    """One repository's tags, prepared once, simulated under any policy (the editor recomputes per key)."""

    def __init__(self, tags: Sequence[TagInfo], *, page_size: int | None = None) -> None:
        self.bulk = CleanupPlanner(tags)
        self.tags = self.bulk.tags
        self.page_size = page_size
        self._pages: list[tuple[list[int], CleanupPlanner]] | None = None
        if page_size:  # GitLab's own registry: the rules apply to each page of tags, in name order
            by_name = sorted(range(len(self.tags)), key=lambda i: self.tags[i].name)
            chunks = [by_name[i:i + page_size] for i in range(0, len(by_name), page_size)]
            self._pages = [(chunk, CleanupPlanner([self.tags[i] for i in chunk])) for chunk in chunks]

    def _reasons(self, rules: CleanupRules, now: datetime) -> list[Reason]:
        if self._pages is None:
            return self.bulk.plan(rules, now).reasons
        reasons = [Reason.NOT_MATCHED] * len(self.tags)
        for chunk, planner in self._pages:
            for index, reason in zip(chunk, planner.plan(rules, now).reasons, strict=True):
                reasons[index] = reason
        return reasons

    def _rankings(self) -> list[list[int]]:
        """Tag indices newest first, per group that keep_n counts in (the repository, or each page)."""
        if self._pages is None:
            return [self.bulk.newest_first()]
        return [[chunk[j] for j in planner.newest_first()] for chunk, planner in self._pages]

    def plan(self, policy: Policy, now: datetime, *, max_list_size: int = DEFAULT_MAX_LIST_SIZE,
             protected: Sequence[str] = ()) -> RepositoryPlan:
        """The policy's outcome for every tag at time `now`. Raises `RulesError` for patterns RE2 refuses
        (GitLab disables such a policy when it comes to run it)."""
        rules = CleanupRules(policy.name_regex or "", policy.name_regex_keep, policy.keep_n,
                             policy.older_than)
        reasons = [_FROM_BULK[reason] for reason in self._reasons(rules, now)]
        shields = [self.bulk.finds(pattern) for pattern in protected]
        deleted: list[int] = []
        for index, reason in enumerate(reasons):
            if reason is PolicyReason.TOO_NEW and self.tags[index].created_at is None:
                reasons[index] = PolicyReason.NO_DATE
            elif reason is PolicyReason.DELETE:
                if any(shield[index] for shield in shields):
                    reasons[index] = PolicyReason.PROTECTED
                else:
                    deleted.append(index)
        counts = dict.fromkeys(PolicyReason, 0)
        for reason in reasons:
            counts[reason] += 1
        limit = 0 if self._pages is not None else max(max_list_size, 0)  # GitLab's registry: bound by time
        return RepositoryPlan(self.tags, reasons, policy.keep_n, limit,
                              self.bulk.freed(deleted), self._ties(reasons, policy.keep_n), counts)

    def _ties(self, reasons: list[PolicyReason], keep_n: int | None) -> tuple[str, ...]:
        """Names of candidates whose date equals the date at the keep_n boundary, when that date is shared
        across it: GitLab's sort leaves their order, and so which of them is kept, unspecified."""
        if not keep_n:
            return ()
        names: list[str] = []
        for order in self._rankings():
            ranked = [i for i in order if reasons[i] in _CANDIDATE]
            if len(ranked) <= keep_n:
                continue
            inside, outside = self.tags[ranked[keep_n - 1]].created_at, self.tags[ranked[keep_n]].created_at
            if inside is None or outside is None or inside != outside:
                continue
            names.extend(self.tags[i].name for i in ranked if self.tags[i].created_at == inside)
        return tuple(names)


Sampler = Callable[[list[int], int], list[int]]


@dataclass(frozen=True, slots=True)
class RunResult:
    deleted: list[str]
    truncated: bool


def run_once(tags: Sequence[TagInfo], policy: Policy, now: datetime, *, sample: Sampler,
             max_list_size: int = DEFAULT_MAX_LIST_SIZE, protected: Sequence[str] = ()) -> RunResult:
    """One run of the policy on one repository, as GitLab carries it out: the full rules, or, past the
    per-run limit, the rules on a `sample(candidate indices, size)` of the candidates."""
    full = PolicyPlanner(tags).plan(policy, now, max_list_size=max_list_size, protected=protected)
    if not full.truncated:
        return RunResult([tag.name for tag in full.to_delete()], False)
    candidates = [i for i, reason in enumerate(full.reasons) if reason in _CANDIDATE]
    picked = sample(candidates, full.max_list_size + (policy.keep_n or 0))
    subset = [tags[i] for i in picked]
    part = PolicyPlanner(subset).plan(policy, now, max_list_size=0, protected=protected)
    return RunResult([tag.name for tag in part.to_delete()], True)


def next_run_after(policy: Policy, now: datetime) -> datetime | None:
    """`next_run_at` as GitLab sets it when a run starts or the policy is saved: now + cadence."""
    seconds = policy.cadence_seconds()
    if seconds is None:
        return None
    return datetime.fromtimestamp(_ts(now) + seconds, UTC)


def saved(policy: Policy, now: datetime) -> Policy:
    """The policy as GitLab stores it on save (`Schedulable`: the interval starts again)."""
    return replace(policy, next_run_at=next_run_after(policy, now))


def _ts(value: datetime) -> float:
    return (value if value.tzinfo else value.replace(tzinfo=UTC)).timestamp()
