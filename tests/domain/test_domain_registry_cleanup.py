"""Bulk tag delete rules of the container registry (GitLab's API docs)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.registry_cleanup import (
    CleanupPlanner,
    CleanupRules,
    Decision,
    Reason,
    RulesError,
    TagInfo,
    plan,
    tag_matches,
    validate_pattern,
)

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def tag(name: str, days_old: float | None, digest: str | None = None, size: int = 100) -> TagInfo:
    created = None if days_old is None else NOW - timedelta(days=days_old)
    return TagInfo(name, created, digest or f"sha256:{name}", size)


def reasons(result_tags: list[TagInfo], rules: CleanupRules) -> dict[str, Reason]:
    result = plan(result_tags, rules, NOW)
    return {t.name: r for t, r in zip(result.tags, result.reasons, strict=True)}


def test_validate_pattern() -> None:
    assert validate_pattern("v[0-9]+\\..*") is None
    assert validate_pattern(".*") is None
    message = validate_pattern("(a")
    assert message is not None and "missing )" in message
    assert validate_pattern("(?=lookahead)") is not None  # not RE2 syntax
    assert validate_pattern("a{1001}") is not None  # RE2 repeat limit


def test_patterns_are_anchored_like_gitlab() -> None:
    assert tag_matches("v1", "v1")
    assert not tag_matches("v1", "v10")
    assert not tag_matches("v1", "xv1")
    # GitLab wraps the text as \A<pattern>\z, so a top-level alternation is anchored at one end only.
    assert tag_matches("feature-.*|main", "xmain")
    assert tag_matches("feature-.*|main", "feature-x")
    assert not tag_matches("(feature-.*|main)", "xmain")


def test_each_rule_gives_its_reason() -> None:
    tags = [
        tag("latest", 400),
        tag("main", 400),
        tag("v1.0", 300),
        tag("v1.1", 200),
        tag("v2.0", 100),
        tag("v2.1", 5),
        tag("v2.2", 3),
        tag("v2.3", 1),
    ]
    rules = CleanupRules(name_regex_delete=r"v.*|latest", name_regex_keep=r"v1\.0", keep_n=1,
                         older_than="30d")
    assert reasons(tags, rules) == {
        "latest": Reason.LATEST,
        "main": Reason.NOT_MATCHED,
        "v1.0": Reason.KEEP_PATTERN,
        "v2.3": Reason.KEEP_N,
        "v2.2": Reason.TOO_NEW,
        "v2.1": Reason.TOO_NEW,
        "v2.0": Reason.MATCHED,
        "v1.1": Reason.MATCHED,
    }


def test_plan_counts_and_decisions() -> None:
    tags = [tag("a", 10), tag("b", 20), tag("latest", 30)]
    result = plan(tags, CleanupRules(".*", keep_n=1), NOW)
    assert result.deleted_count == 1 and result.kept_count == 2
    assert result.counts[Reason.KEEP_N] == 1 and result.counts[Reason.LATEST] == 1
    assert [t.name for t in result.to_delete()] == ["b"]
    decisions = result.decisions()
    assert [d.decision for d in decisions] == [Decision.KEEP, Decision.DELETE, Decision.KEEP]
    assert decisions[0].describe() == "among the 1 newest"
    assert decisions[2].describe() == "latest"


def test_keep_everything_pattern_is_a_no_op() -> None:
    tags = [tag("a", 10), tag("b", 20)]
    assert plan(tags, CleanupRules(".*", name_regex_keep=".*"), NOW).deleted_count == 0


def test_tags_without_creation_time() -> None:
    tags = [tag("old", 100), tag("unknown", None)]
    # keep_n counts an unknown creation time as newest
    assert reasons(tags, CleanupRules(".*", keep_n=1)) == {"unknown": Reason.KEEP_N, "old": Reason.MATCHED}
    # older_than never deletes a tag whose age is unknown
    assert reasons(tags, CleanupRules(".*", older_than="1d")) == {"unknown": Reason.TOO_NEW,
                                                                    "old": Reason.MATCHED}


def test_older_than_is_strict_and_calendar() -> None:
    tags = [tag("exactly", 7), tag("older", 7.001), tag("newer", 6.999)]
    assert reasons(tags, CleanupRules(".*", older_than="1w")) == {
        "exactly": Reason.TOO_NEW, "older": Reason.MATCHED, "newer": Reason.TOO_NEW,
    }
    result = plan(tags, CleanupRules(".*", older_than="1w"), NOW)
    assert result.cutoff == NOW - timedelta(days=7)


def test_space_freed_counts_a_digest_once_and_only_when_unreferenced() -> None:
    tags = [
        tag("a1", 50, "sha256:a", 1000),
        tag("a2", 40, "sha256:a", 1000),  # same manifest as a1: counted once
        tag("b1", 30, "sha256:b", 500),
        tag("b2", 1, "sha256:b", 500),  # kept (too new): b is still referenced
        TagInfo("c", NOW - timedelta(days=60), None, 70),  # no digest: counts alone
        TagInfo("d", NOW - timedelta(days=60), None, None),  # unknown size counts as 0
    ]
    result = plan(tags, CleanupRules(".*", older_than="10d"), NOW)
    assert {t.name for t in result.to_delete()} == {"a1", "a2", "b1", "c", "d"}
    assert result.bytes_freed == 1070


def test_latest_keeps_its_digest() -> None:
    tags = [tag("latest", 50, "sha256:x", 900), tag("v1", 50, "sha256:x", 900)]
    result = plan(tags, CleanupRules(".*"), NOW)
    assert result.deleted_count == 1 and result.bytes_freed == 0


def test_bad_rules_raise() -> None:
    tags = [tag("a", 1)]
    with pytest.raises(RulesError, match="RE2"):
        plan(tags, CleanupRules("(a"), NOW)
    with pytest.raises(RulesError):
        plan(tags, CleanupRules(".*", keep_n=-1), NOW)
    with pytest.raises(RulesError, match="older_than"):
        plan(tags, CleanupRules(".*", older_than="soon"), NOW)
    assert len(CleanupRules("(a", name_regex_keep="[", keep_n=-1, older_than="x").errors()) == 4
    assert CleanupRules(".*", "v1", 3, "90d").errors() == []


def test_planner_reuses_cached_matches() -> None:
    planner = CleanupPlanner([tag("a", 1), tag("b", 2)])
    first = planner.matches("a")
    assert list(first) == [1, 0]
    assert planner.matches("a") is first


def test_naive_datetimes_are_utc() -> None:
    naive = TagInfo("n", datetime(2025, 12, 1), "sha256:n", 1)
    assert plan([naive], CleanupRules(".*", older_than="30d"), NOW).deleted_count == 1


# ------------------------------------------------------------------------------------- properties

NAMES = st.sampled_from(["latest", "main", "v1.0", "v1.1", "v1.10", "v2.0", "feature-a", "feature-b",
                         "release-1", "a", "b", "ab"])
PATTERNS = st.sampled_from([".*", "v.*", r"v1\..*", "feature-.*|main", "(a|b)+", "", "latest",
                            r"v[0-9]+\.[0-9]+", "a|b", "release-.*"])
TAGS = st.lists(
    st.builds(
        TagInfo,
        name=NAMES,
        created_at=st.one_of(st.none(), st.integers(0, 400 * 24).map(lambda h: NOW - timedelta(hours=h))),
        digest=st.sampled_from(["sha256:1", "sha256:2", "sha256:3", None]),
        total_size=st.one_of(st.none(), st.integers(0, 10**6)),
    ),
    max_size=30,
)
RULES = st.builds(
    CleanupRules,
    name_regex_delete=PATTERNS,
    name_regex_keep=st.one_of(st.none(), PATTERNS),
    keep_n=st.one_of(st.none(), st.integers(0, 10)),
    older_than=st.one_of(st.none(), st.sampled_from(["1h", "1d", "7d", "1month", "90d"])),
)


def _candidates(tags: list[TagInfo], rules: CleanupRules) -> list[int]:
    return [
        i for i, t in enumerate(tags)
        if t.name != "latest" and tag_matches(rules.name_regex_delete, t.name)
        and not (rules.name_regex_keep is not None and tag_matches(rules.name_regex_keep, t.name))
    ]


@given(TAGS, RULES)
def test_plan_invariants(tags: list[TagInfo], rules: CleanupRules) -> None:
    result = plan(tags, rules, NOW)
    deleted = {i for i, r in enumerate(result.reasons) if r is Reason.MATCHED}
    for i in deleted:
        t = tags[i]
        assert t.name != "latest"
        assert tag_matches(rules.name_regex_delete, t.name)
        assert rules.name_regex_keep is None or not tag_matches(rules.name_regex_keep, t.name)
        if rules.older_than is not None:
            assert t.created_at is not None and t.created_at < result.cutoff
    assert all(tags[i].name != "latest" or r is Reason.LATEST for i, r in enumerate(result.reasons))

    candidates = _candidates(tags, rules)
    kept_by_n = [i for i, r in enumerate(result.reasons) if r is Reason.KEEP_N]
    n = rules.keep_n or 0
    assert len(kept_by_n) == min(n, len(candidates))

    def age_key(i: int) -> float:
        created = tags[i].created_at
        return float("inf") if created is None else created.timestamp()

    if kept_by_n:
        oldest_kept = min(age_key(i) for i in kept_by_n)
        assert all(age_key(i) <= oldest_kept for i in candidates if i not in kept_by_n)
    assert result.deleted_count + result.kept_count == len(tags)
    assert 0 <= result.bytes_freed <= sum(t.total_size or 0 for t in tags)


@given(TAGS, RULES, RULES)
def test_planner_recompute_equals_fresh_plan(tags: list[TagInfo], first: CleanupRules,
                                             second: CleanupRules) -> None:
    planner = CleanupPlanner(tags)
    planner.plan(first, NOW)
    assert planner.plan(second, NOW).reasons == plan(tags, second, NOW).reasons
