"""`domain.protection_rules` and the journal's rules for protected environments (issue 32 item 3): the PUT
that turns the rules answered after a change in place back into those read before it, applied the way
GitLab applies nested records (`accepts_nested_attributes_for ... allow_destroy: true`), always gives the
old rules back; an unprotect is undone by protecting again as it was."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.journal_rules import ABSENT, changed_since, classify, inverse_of
from labdeck.domain.journal_words import change_phrase, change_rows
from labdeck.domain.protection_rules import recreating_body, restoring_body, rule_entries, who

PATH = "projects/7/protected_environments/production"


def rule(ident: int, **who_: int) -> dict[str, Any]:
    return {"id": ident, "access_level": who_.get("access_level"), "user_id": who_.get("user_id"),
            "group_id": who_.get("group_id"), "access_level_description": "x"}


def apply(protection: dict[str, Any], body: dict[str, Any], next_id: int = 1000) -> dict[str, Any]:
    """GitLab's nested attributes: `id` changes (or with `_destroy` drops) that record, no `id` adds one."""
    rules = [dict(r) for r in protection["deploy_access_levels"]]
    for entry in body.get("deploy_access_levels", []):
        if "id" not in entry:
            rules.append({"id": next_id, "access_level": None, "user_id": None, "group_id": None, **entry})
            next_id += 1
        elif entry.get("_destroy"):
            rules = [r for r in rules if r["id"] != entry["id"]]
        else:
            found = next(r for r in rules if r["id"] == entry["id"])
            found.update({k: v for k, v in entry.items() if k != "id"})
    return {**protection, "deploy_access_levels": rules}


def whos(protection: dict[str, Any]) -> list[tuple[Any, ...]]:
    return sorted(tuple(sorted(who(r).items())) for r in protection["deploy_access_levels"])


_RULE = st.one_of(st.builds(lambda v: {"access_level": v}, st.sampled_from([30, 40, 60])),
                  st.builds(lambda v: {"user_id": v}, st.integers(1, 9)),
                  st.builds(lambda v: {"group_id": v}, st.integers(1, 9)))


@given(st.lists(_RULE, min_size=1, max_size=5), st.lists(_RULE, max_size=3), st.data())
def test_the_restoring_put_gives_the_old_rules_back(old: list[dict[str, int]], added: list[dict[str, int]],
                                                    data: st.DataObject) -> None:
    before = {"name": "production", "deploy_access_levels": [rule(i + 1, **r) for i, r in enumerate(old)]}
    dropped = data.draw(st.lists(st.sampled_from([r["id"] for r in before["deploy_access_levels"]]),
                                 unique=True, max_size=len(old)))
    change = {"deploy_access_levels": [*added, *({"id": i, "_destroy": True} for i in dropped)]}
    after = apply(before, change, next_id=100)
    restored = apply(after, restoring_body(after, before, ("deploy_access_levels",)), next_id=500)
    assert whos(restored) == whos(before)
    kept = {r["id"] for r in before["deploy_access_levels"]} - set(dropped)
    assert kept <= {r["id"] for r in restored["deploy_access_levels"]}  # what the change kept keeps its id


def test_a_rule_changed_in_place_gets_its_old_values_back() -> None:
    before = {"deploy_access_levels": [rule(1, access_level=30)]}
    after = {"deploy_access_levels": [rule(1, group_id=4)]}
    assert restoring_body(after, before) == {"deploy_access_levels": [
        {"id": 1, "user_id": None, "group_id": None, "access_level": 30}]}
    assert restoring_body(before, before) == {}


def test_a_user_rule_is_sent_back_with_its_user_only() -> None:
    """Older GitLab answers `access_level: 40` beside a user's id; sent together they are refused."""
    before = {"name": "production", "deploy_access_levels": [{"id": 3, "access_level": 40, "user_id": 5}],
              "required_approval_count": 0}
    assert recreating_body(before) == {"name": "production", "deploy_access_levels": [{"user_id": 5}]}


def test_the_journal_names_and_undoes_a_change_in_place() -> None:
    op = classify("PUT", PATH)
    assert (op.kind, op.label, op.snapshot, op.owner) == (
        "protected_environment.update", "change deploy rules", PATH, ("projects", "7"))
    assert change_phrase(op.label, "environment production of acme/app") == (
        "change deploy rules of environment production of acme/app")
    before = {"name": "production", "deploy_access_levels": [rule(1, access_level=40)]}
    after = {"name": "production", "deploy_access_levels": [rule(1, access_level=40), rule(2, user_id=5)]}
    inverse = inverse_of(op, PATH, before, after, {"deploy_access_levels": [{"user_id": 5}]})
    assert inverse is not None
    assert (inverse.method, inverse.path, inverse.check_path) == ("PUT", PATH, PATH)
    assert inverse.body == {"deploy_access_levels": [{"id": 2, "_destroy": True}]}
    assert changed_since(inverse, after) is None
    assert changed_since(inverse, before) == "its deploy access levels are not the ones the change left"
    assert changed_since(inverse, None) == "it no longer exists"
    assert rule_entries(after, "deploy_access_levels")[1] == {"id": 2, "access_level": None, "user_id": 5,
                                                              "group_id": None}
    rows = change_rows(op.kind, op.label, {**before, "deploy_access_levels": [
        {**rule(1, access_level=40), "access_level_description": "Maintainers"}]}, {
        "deploy_access_levels": [{**rule(1, access_level=40), "access_level_description": "Maintainers"},
                                 {**rule(2, user_id=5), "access_level_description": "Alice"}]}, True)
    assert rows == [("who may deploy", "Maintainers", "Maintainers, Alice")]


def test_the_journal_undoes_an_unprotect_by_protecting_again() -> None:
    op = classify("DELETE", PATH)
    assert (op.kind, op.label) == ("protected_environment.delete", "unprotect environment")
    before = {"name": "production", "deploy_access_levels": [rule(1, access_level=40), rule(2, group_id=9)]}
    inverse = inverse_of(op, PATH, before, None, {})
    assert inverse is not None
    assert (inverse.method, inverse.path, inverse.expect) == (
        "POST", "projects/7/protected_environments", ABSENT)
    assert inverse.body == {"name": "production",
                            "deploy_access_levels": [{"access_level": 40}, {"group_id": 9}]}
