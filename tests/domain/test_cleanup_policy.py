"""The cleanup policy's simulation (domain/cleanup_policy.py): GitLab's documented example, every rule, the
per-run limit and its sample, GitLab's validation; hypothesis for keep_n with ties and shared digests."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.cleanup_policy import (
    OLDER_THAN_VALUES,
    Policy,
    PolicyPlanner,
    PolicyReason,
    RepositoryPlan,
    older_than_values,
    policy_errors_text,
    run_once,
    saved,
)
from labdeck.domain.registry_cleanup import RulesError, TagInfo

NOW = datetime(2026, 1, 1, tzinfo=UTC)
R = PolicyReason


def tag(name: str, days_old: float | None, digest: str | None = None, size: int = 100) -> TagInfo:
    created = None if days_old is None else NOW - timedelta(days=days_old)
    return TagInfo(name, created, digest or f"sha256:{name}", size)


def simulate(tags: list[TagInfo], policy: Policy, **kw: object) -> RepositoryPlan:
    return PolicyPlanner(tags).plan(policy, NOW, **kw)  # type: ignore[arg-type]


def by_name(result: RepositoryPlan) -> dict[str, PolicyReason]:
    return {t.name: r for t, r in zip(result.tags, result.reasons, strict=True)}


def test_gitlab_documented_example() -> None:
    """reduce_container_registry_storage.md, "Example cleanup policy workflow": dev-v42, v43, v42 go."""
    tags = [tag("latest", 2 / 24), tag("production-v44", 3), tag("production-v43", 6),
            tag("production-v42", 11), tag("dev-v44", 2), tag("dev-v43", 5), tag("dev-v42", 10),
            tag("v44", 1), tag("v43", 12), tag("v42", 20)]
    policy = Policy(enabled=True, keep_n=1, name_regex_keep="production-.*", older_than="7d", name_regex=".*")
    result = simulate(tags, policy)
    assert sorted(t.name for t in result.to_delete()) == ["dev-v42", "v42", "v43"]
    reasons = by_name(result)
    assert reasons["latest"] is R.LATEST
    assert {reasons[f"production-v4{i}"] for i in (2, 3, 4)} == {R.KEEP_PATTERN}
    assert reasons["v44"] is R.KEEP_N and result.describe(7) == "among the 1 newest"
    assert reasons["dev-v44"] is reasons["dev-v43"] is R.TOO_NEW


def test_regexes_are_anchored_re2_and_keep_wins() -> None:
    tags = [tag("v1", 100), tag("xv1", 100), tag("v1-rc", 100), tag("v2", 100)]
    result = by_name(simulate(tags, Policy(keep_n=None, older_than=None, name_regex="v.",
                                           name_regex_keep="v2")))
    assert result == {"v1": R.DELETE, "xv1": R.NOT_MATCHED, "v1-rc": R.NOT_MATCHED, "v2": R.KEEP_PATTERN}


def test_latest_is_never_deleted_even_when_matched_and_old() -> None:
    result = by_name(simulate([tag("latest", 900), tag("old", 900)],
                              Policy(keep_n=None, older_than="7d", name_regex="l.*|o.*")))
    assert result == {"latest": R.LATEST, "old": R.DELETE}


def test_policy_without_name_regex_matches_nothing() -> None:
    result = simulate([tag("a", 100), tag("b", 100)], Policy(keep_n=None, older_than=None, name_regex=None))
    assert result.deleted_count == 0 and result.candidates == 0
    assert set(result.reasons) == {R.NOT_MATCHED}


def test_keep_n_by_creation_date_and_missing_date_counts_as_newest() -> None:
    tags = [tag("a", 5), tag("b", 1), tag("nodate", None), tag("c", 9)]
    result = by_name(simulate(tags, Policy(keep_n=1, older_than=None)))
    assert result == {"nodate": R.KEEP_N, "b": R.DELETE, "a": R.DELETE, "c": R.DELETE}


def test_older_than_keeps_tags_without_a_creation_date() -> None:
    tags = [tag("nodate", None), tag("old", 31), tag("new", 29)]
    result = by_name(simulate(tags, Policy(keep_n=None, older_than="30d")))
    assert result == {"nodate": R.NO_DATE, "old": R.DELETE, "new": R.TOO_NEW}


def test_protected_tags_are_kept_unanchored_and_count_towards_keep_n() -> None:
    tags = [tag("release-1", 40), tag("b", 50), tag("c", 60), tag("d", 1)]
    result = by_name(simulate(tags, Policy(keep_n=1, older_than=None), protected=["release"]))
    assert result == {"d": R.KEEP_N, "release-1": R.PROTECTED, "b": R.DELETE, "c": R.DELETE}


def test_shared_digests_count_once_and_only_when_every_tag_goes() -> None:
    tags = [tag("a", 50, "sha256:x", 70), tag("b", 50, "sha256:x", 70), tag("keep", 50, "sha256:y", 5),
            tag("c", 60, "sha256:y", 5)]
    result = simulate(tags, Policy(keep_n=None, older_than=None, name_regex_keep="keep"))
    assert result.deleted_count == 3
    assert result.bytes_freed == 70  # x once; y is still held by `keep`


def test_per_run_limit_says_how_many_runs() -> None:
    tags = [tag(f"t{i:04d}", 100 + i) for i in range(530)]
    result = simulate(tags, Policy(keep_n=10, older_than=None), max_list_size=200)
    assert result.candidates == 530 and result.truncated
    assert result.deleted_count == 520 and result.first_run_bound == 200 and result.runs == 3
    limited = simulate(tags[:210], Policy(keep_n=10, older_than=None), max_list_size=200)
    assert not limited.truncated and limited.runs == 1 and limited.first_run_bound == 200
    unlimited = simulate(tags, Policy(keep_n=10, older_than=None), max_list_size=0)
    assert not unlimited.truncated and unlimited.first_run_bound == 520


def test_ties_at_the_keep_n_boundary_are_named() -> None:
    tags = [tag("build", 10, "sha256:same"), tag("v1.0.0", 10, "sha256:same"), tag("old", 20)]
    result = simulate(tags, Policy(keep_n=1, older_than=None))
    assert set(result.ties) == {"build", "v1.0.0"}
    assert simulate(tags, Policy(keep_n=2, older_than=None)).ties == ()


def test_bad_pattern_raises() -> None:
    with pytest.raises(RulesError):
        simulate([tag("a", 1)], Policy(name_regex="(a"))


def test_validation_uses_gitlabs_lists_and_messages() -> None:
    assert Policy(enabled=True).errors() == {}
    for cadence in ("1d", "7d", "14d", "1month", "3month"):
        assert Policy(cadence=cadence).errors() == {}
    bad = Policy(enabled=True, cadence="2d", keep_n=3, older_than="45d", name_regex="(a")
    errors = bad.errors()
    assert errors["cadence"] == ["is not included in the list"]
    assert errors["keep_n"] == ["is not included in the list"]
    assert errors["older_than"] == ["is not included in the list"]
    assert errors["name_regex"][0].startswith("not valid RE2 syntax")
    assert Policy(enabled=False, name_regex="(a").errors() == {}  # regexes are checked only when enabled
    assert Policy(cadence="").errors()["cadence"] == ["can't be blank", "is not included in the list"]
    text = policy_errors_text({"keep_n": ["is not included in the list"]})
    assert text == "keep_n is not included in the list"
    assert Policy(keep_n=None, older_than=None).errors() == {}


def test_older_than_values_are_gitlabs_with_60d_from_14_4() -> None:
    """`ContainerExpirationPolicy.older_than_options` (app/models/container_expiration_policy.rb): 7d, 14d,
    30d, 60d and 90d; `60d` came in 14.4 (commit c7be549c, "Add option of 60 days to container image
    expiration policy"), so an older instance refuses it and is not offered it."""
    assert OLDER_THAN_VALUES == ("7d", "14d", "30d", "60d", "90d")
    assert Policy(older_than="60d").errors() == {}
    assert older_than_values(None) == OLDER_THAN_VALUES  # the version unknown: nothing is held back
    assert older_than_values((14, 4, 0)) == OLDER_THAN_VALUES
    assert older_than_values((14, 3, 2)) == ("7d", "14d", "30d", "90d")
    assert Policy(older_than="60d").errors(older_than=older_than_values((14, 3, 0))) == {
        "older_than": ["is not included in the list"]}


def test_an_enabled_policy_needs_a_name_regex() -> None:
    """`validates :name_regex, presence: true, if: :enabled?`: blank (nil, empty or spaces, Rails' `blank?`)
    is refused with "can't be blank" when the policy is enabled, and only then; a blank pattern is a valid
    RE2 pattern, so it is the only message."""
    for blank in (None, "", "   "):
        assert Policy(enabled=True, name_regex=blank).errors() == {"name_regex": ["can't be blank"]}
        assert Policy(enabled=False, name_regex=blank).errors() == {}
    assert policy_errors_text(Policy(enabled=True, name_regex="").errors()) == "name_regex can't be blank"


def test_an_edit_sends_only_what_changed_and_keeps_what_it_does_not_know() -> None:
    """An editor never changes a field the operator did not change: a save sends the values that differ
    from the policy loaded, and a loaded value labdeck does not know (a newer GitLab's) is the instance's
    own, never refused for not being in labdeck's lists."""
    loaded = Policy(enabled=True, cadence="7d", keep_n=10, older_than="60d", name_regex="nightly-.*")
    edited = Policy(enabled=True, cadence="7d", keep_n=25, older_than="60d", name_regex="nightly-.*")
    assert edited.changed_attributes(loaded) == {"keep_n": 25}
    assert edited.changed_attributes(None) == edited.attributes()  # nothing loaded: every value
    assert loaded.changed_attributes(loaded) == {}
    unknown = Policy(enabled=True, cadence="2month", keep_n=3, older_than="45d", name_regex=".*")
    assert set(unknown.errors()) == {"cadence", "keep_n", "older_than"}
    assert unknown.errors(kept=unknown) == {}  # as loaded: GitLab holds it, GitLab judges it
    changed = Policy(enabled=True, cadence="2month", keep_n=7, older_than="45d", name_regex=".*")
    assert changed.errors(kept=unknown) == {"keep_n": ["is not included in the list"]}
    blank = Policy(enabled=True, name_regex="")
    assert blank.errors(kept=replace(blank, enabled=False)) == {"name_regex": ["can't be blank"]}


def test_from_json_and_save_resets_the_interval() -> None:
    policy = Policy.from_json({"enabled": True, "cadence": "7d", "keep_n": 5, "older_than": None,
                               "name_regex": ".*", "name_regex_keep": None,
                               "next_run_at": "2026-01-02T00:00:00.000Z"})
    assert policy.next_run_at == datetime(2026, 1, 2, tzinfo=UTC) and policy.keep_n == 5
    assert saved(policy, NOW).next_run_at == NOW + timedelta(days=7)
    assert Policy.from_json({"keep_n": "5"}).keep_n is None


def test_run_once_within_the_limit_deletes_what_the_plan_says() -> None:
    tags = [tag(f"t{i}", i) for i in range(1, 40)]
    policy = Policy(keep_n=5, older_than="7d")
    expected = {t.name for t in simulate(tags, policy).to_delete()}
    result = run_once(tags, policy, NOW, sample=lambda xs, n: pytest.fail("no sample"))  # type: ignore[arg-type,return-value]
    assert set(result.deleted) == expected and not result.truncated


# --- properties -----------------------------------------------------------------------------------------

DAYS = st.one_of(st.none(), st.integers(0, 30))  # few distinct dates: many ties
TAGS = st.lists(st.tuples(st.sampled_from("abcdefghij"), DAYS, st.integers(0, 4), st.integers(1, 50)),
                max_size=40).map(
    lambda rows: list({f"{n}{i}": tag(f"{n}{i}", d, f"sha256:{g}", s) for i, (n, d, g, s) in enumerate(rows)}
                      .values()))
POLICIES = st.builds(Policy, enabled=st.just(True), keep_n=st.sampled_from((None, 1, 5, 10)),
                     older_than=st.sampled_from((None, "7d", "14d")),
                     name_regex=st.sampled_from((".*", "[a-e].*", "a.*|.*3")),
                     name_regex_keep=st.sampled_from((None, "b.*", "")))


@given(TAGS, POLICIES)
def test_keep_n_keeps_the_n_newest_candidates_whatever_the_ties(tags: list[TagInfo], policy: Policy) -> None:
    result = simulate(tags, policy, max_list_size=0)
    kept_n = [t for t, r in zip(result.tags, result.reasons, strict=True) if r is R.KEEP_N]
    cand = [t for t, r in zip(result.tags, result.reasons, strict=True) if r not in
            (R.LATEST, R.NOT_MATCHED, R.KEEP_PATTERN)]
    assert len(kept_n) == min(policy.keep_n or 0, len(cand))
    newest_dropped = max((_key(t) for t in cand if t not in kept_n), default=None)
    if newest_dropped is not None and kept_n:
        assert min(_key(t)[0] for t in kept_n) >= newest_dropped[0]  # no dropped tag is newer than a kept one
    # a reported tie is exactly the case where dates alone do not decide
    if result.ties:
        assert len({t.created_at for t in tags if t.name in result.ties}) == 1


@given(TAGS, POLICIES)
def test_bytes_freed_counts_each_fully_deleted_digest_once(tags: list[TagInfo], policy: Policy) -> None:
    result = simulate(tags, policy, max_list_size=0)
    gone = {t.name for t in result.to_delete()}
    by_digest: dict[str, list[TagInfo]] = {}
    for t in tags:
        by_digest.setdefault(t.digest or t.name, []).append(t)
    expected = sum(max(x.total_size or 0 for x in group) for group in by_digest.values()
                   if all(x.name in gone for x in group))
    assert result.bytes_freed == expected


@given(TAGS, POLICIES, st.integers(1, 6), st.integers(0, 2**32))
def test_a_sampled_run_deletes_only_planned_tags_and_at_most_the_limit(
        tags: list[TagInfo], policy: Policy, limit: int, seed: int) -> None:
    rng = random.Random(seed)
    planned = {t.name for t in simulate(tags, policy, max_list_size=0).to_delete()}
    remaining = list(tags)
    for _ in range(60):
        result = run_once(remaining, policy, NOW, max_list_size=limit, sample=rng.sample)
        assert set(result.deleted) <= planned
        assert len(result.deleted) <= (limit if result.truncated else len(planned))
        remaining = [t for t in remaining if t.name not in set(result.deleted)]
        if not result.truncated:
            break
    assert planned == {t.name for t in tags} - {t.name for t in remaining} or result.truncated


def _key(t: TagInfo) -> tuple[float]:
    return (float("inf") if t.created_at is None else t.created_at.timestamp(),)


def test_gitlabs_own_registry_applies_keep_n_per_page_of_names() -> None:
    """`gitlab/cleanup_tags_service.rb`: pages of 1,000 tags in name order, the rules on each page alone."""
    tags = [tag(f"a{i}", 10 + i) for i in range(3)] + [tag(f"b{i}", 100 + i) for i in range(3)]
    policy = Policy(keep_n=1, older_than=None)
    whole = by_name(PolicyPlanner(tags).plan(policy, NOW))
    paged_plan = PolicyPlanner(tags, page_size=3).plan(policy, NOW)
    paged = by_name(paged_plan)
    assert [n for n, r in whole.items() if r is R.KEEP_N] == ["a0"]
    assert sorted(n for n, r in paged.items() if r is R.KEEP_N) == ["a0", "b0"]  # one per page
    assert not paged_plan.truncated and paged_plan.max_list_size == 0  # bounded by time, not count
    ties = [tag("x1", 5), tag("x2", 5), tag("y1", 7), tag("y2", 7)]
    assert set(PolicyPlanner(ties, page_size=2).plan(policy, NOW).ties) == {"x1", "x2", "y1", "y2"}
