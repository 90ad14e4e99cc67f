"""Deleting exactly the previewed names: the bulk pattern matches those names and nothing else."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.registry_cleanup import BULK_EXACT_MAX, difference, exact_rules, tag_matches

TAG = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.\-]{0,20}", fullmatch=True)


@given(st.sets(TAG, min_size=1, max_size=30), st.sets(TAG, max_size=30))
def test_the_pattern_matches_exactly_the_names(names: set[str], others: set[str]) -> None:
    names.discard("latest")
    if not names:
        return
    rules = exact_rules(sorted(names))
    assert rules is not None
    assert rules.keep_n is None and rules.older_than is None and rules.name_regex_keep is None
    for name in names | others:
        assert tag_matches(rules.name_regex_delete, name) == (name in names), name


def test_prefixes_and_suffixes_do_not_match() -> None:
    rules = exact_rules(["v1", "rc"])
    assert rules is not None
    assert not tag_matches(rules.name_regex_delete, "v10") and not tag_matches(rules.name_regex_delete, "prc")
    assert not tag_matches(rules.name_regex_delete, "v1|rc")


def test_what_one_bulk_request_cannot_carry_goes_tag_by_tag() -> None:
    assert exact_rules([f"t{i}" for i in range(BULK_EXACT_MAX + 1)]) is None
    assert exact_rules([f"t{i}" for i in range(BULK_EXACT_MAX)]) is not None
    assert exact_rules(["latest", "v1"]) is None and exact_rules([]) is None


def test_difference_names_what_is_left_and_what_went_besides() -> None:
    found = difference(seen={"a", "b", "c", "d"}, asked={"a", "b"}, now={"b", "d", "new"})
    assert found.left == ("b",) and found.extra == ("c",) and not found.exact
    assert difference({"a", "b"}, {"a"}, {"b", "pushed-since"}).exact
