"""Which CI/CD variable definition wins (issue 36), GitLab's rules as `domain.variable_precedence` states them
(doc/ci/variables/_index.md "CI/CD variable precedence": project over the closest subgroup over the groups
above it over the instance; `HasEnvironmentScope.on_environment`: the exact environment over a pattern over
`*`; protected variables on protected refs only), and the findings of `domain.variable_findings`."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.variable_findings import findings, looks_secret, reviewed
from labdeck.domain.variable_precedence import (
    Definition,
    applied,
    pattern_ties,
    scope_matches,
    winners,
)


def d(level: str, path: str = "", scope: str = "*", *, protected: bool = False, masked: bool = False,
      key: str = "K", order: int = 0) -> Definition:
    return Definition(key, level, path, scope, protected, masked, order=order)  # type: ignore[arg-type]


INSTANCE = d("instance")
TOP = d("group", "acme")
SUB = d("group", "acme/platform")
PROJECT = d("project", "acme/platform/api")


def test_project_over_nearest_group_over_instance() -> None:
    for present, expected in (([INSTANCE, TOP, SUB, PROJECT], PROJECT), ([INSTANCE, TOP, SUB], SUB),
                              ([INSTANCE, TOP], TOP), ([INSTANCE], INSTANCE)):
        assert applied(present, "acme/platform/api", "production") == expected


def test_a_nearer_level_wins_whatever_its_scope() -> None:
    """A project's `*` beats a group's exact `production`: GitLab appends the project's variables after the
    groups', each level filtered by environment first."""
    group_exact = d("group", "acme", "production")
    assert applied([group_exact, PROJECT], "acme/platform/api", "production") == PROJECT


def test_in_one_owner_exact_scope_over_pattern_over_wildcard() -> None:
    star, pattern, exact = (d("project", "g/p", s) for s in ("*", "review/*", "review/app-1"))
    assert applied([star, pattern, exact], "g/p", "review/app-1") == exact
    assert applied([star, pattern], "g/p", "review/app-2") == pattern
    assert applied([star, pattern, exact], "g/p", "production") == star


def test_scope_patterns_are_literal_but_for_the_star() -> None:
    assert scope_matches("review/*", "review/a_b")
    assert not scope_matches("review_*", "reviewX1")  # `_` is literal, not SQL's any character
    assert not scope_matches("Review/*", "review/a")  # case counts
    assert scope_matches("", "anything")  # no scope is `*`


def test_protected_definitions_reach_protected_refs_only() -> None:
    protected_project = d("project", "acme/platform/api", protected=True)
    assert applied([TOP, protected_project], "acme/platform/api", "production") == TOP
    assert applied([TOP, protected_project], "acme/platform/api", "production", protected_ref=True) \
        == protected_project


def test_a_group_definition_overridden_in_every_project_loses() -> None:
    group = d("group", "g")
    own = [d("project", "g/a"), d("project", "g/b")]
    assert winners([group, *own], ["g/a", "g/b"]) == set(own)
    assert winners([group, *own], ["g/a", "g/b", "g/c"]) == {group, *own}  # g/c gets the group's
    # a group with no project of the review below it: nothing overrides it
    assert winners([group], []) == {group}


def test_a_protected_project_definition_leaves_the_group_s_winning_on_other_refs() -> None:
    group = d("group", "g")
    protected = d("project", "g/a", protected=True)
    assert winners([group, protected], ["g/a"]) == {group, protected}


def test_two_patterns_of_one_owner_that_meet_are_a_tie() -> None:
    one, other = d("group", "g", "review/*"), d("group", "g", "review/a*", order=1)
    apart = d("group", "g", "staging/*", order=2)
    assert pattern_ties([one, other, apart]) == {one, other}
    # two patterns meeting only on a name neither names (`review/app`): no probe of their own finds it
    crossed = d("group", "g", "*/app", order=3)
    assert pattern_ties([one, crossed]) == {one, crossed}
    assert applied([one, other], "g/p", "review/app") == other  # labdeck takes the later one


def test_looks_secret() -> None:
    for key in ("DEPLOY_TOKEN", "db_password", "AWS_SECRET_ACCESS_KEY", "NPMTOKEN", "SSH_PRIVATE_KEY",
                "API_KEY", "SENTRY_DSN"):
        assert looks_secret(key), key
    for key in ("DEPLOY_REGION", "TOKEN_URL", "SSH_KEY_PATH", "AWS_ACCESS_KEY_ID", "PUBLIC_KEY", "KEYBOARD",
                "MONKEY"):
        assert not looks_secret(key), key


def test_the_seeded_deploy_token_findings() -> None:
    """The issue's case: `DEPLOY_TOKEN` unmasked at a group and defined again, masked, in a project."""
    group = Definition("DEPLOY_TOKEN", "group", "fleet", protected=True)
    project = Definition("DEPLOY_TOKEN", "project", "fleet/edge/api", protected=True, masked=True)
    region = Definition("DEPLOY_REGION", "group", "fleet")
    rows = {r.definition: r for r in reviewed([group, project, region], ["fleet/edge/api", "fleet/web/x"])}
    assert rows[group].findings == ("secret_not_masked", "flags_differ")
    assert rows[project].findings == ("flags_differ",)
    assert rows[region].findings == ()
    assert rows[group].wins and rows[project].wins and rows[region].wins


def test_flags_differ_only_where_the_definitions_reach_the_same_jobs() -> None:
    one = Definition("X", "project", "g/a", masked=True)
    other = Definition("X", "project", "g/b")
    assert findings([one, other]) == {}
    assert findings([one, Definition("X", "group", "g")]) != {}


LEVELS = st.sampled_from([("instance", ""), ("group", "a"), ("group", "a/b"), ("project", "a/b/p"),
                          ("project", "a/q")])
SCOPES = st.sampled_from(["*", "production", "review/*", "review/x", "*/x"])
DEFINITIONS = st.lists(st.builds(lambda where, scope, protected, order: Definition(
    "K", where[0], where[1], scope, protected, order=order), LEVELS, SCOPES, st.booleans(),
    st.integers(0, 5)), max_size=8, unique=True)
NEARNESS = {"instance": 0, "group": 1, "project": 2}


@given(DEFINITIONS, st.sampled_from(["a/b/p", "a/q"]), st.sampled_from(["production", "review/x", "staging"]),
       st.booleans())
def test_no_applicable_definition_is_nearer_than_the_applied_one(
        definitions: list[Definition], project: str, environment: str, protected_ref: bool) -> None:
    found = applied(definitions, project, environment, protected_ref)
    reach = [x for x in definitions if (protected_ref or not x.protected)
             and scope_matches(x.environment_scope, environment)
             and (x.level == "instance" or x.path == project
                  or (x.level == "group" and project.startswith(x.path + "/")))]
    assert (found is None) == (not reach)
    if found is not None:
        assert found in reach
        nearest = max((NEARNESS[x.level], x.path.count("/")) for x in reach)
        assert (NEARNESS[found.level], found.path.count("/")) == nearest


@given(DEFINITIONS)
def test_winners_are_definitions_and_an_unprotected_star_in_every_project_always_wins(
        definitions: list[Definition]) -> None:
    projects = ["a/b/p", "a/q"]
    won = winners(definitions, projects)
    assert won <= set(definitions)
    for x in definitions:
        if x.level == "project" and x.environment_scope == "*" and not x.protected \
                and not any(y.level == "project" and y.path == x.path and y is not x for y in definitions):
            assert x in won


@given(st.text("ab*/", max_size=6), st.text("ab*/", max_size=6), st.text("ab/", max_size=6))
def test_patterns_meet_whenever_one_name_matches_both(one: str, other: str, name: str) -> None:
    from labdeck.domain.variable_precedence import patterns_meet

    if one and other and scope_matches(one, name) and scope_matches(other, name):
        assert patterns_meet(one, other)
