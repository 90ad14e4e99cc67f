"""The endpoint catalogue (domain/endpoints.py, domain/catalogue.py): paths built through the one segment
encoder and read back, typed segments, the most specific match, families, and a catalogue without
duplicates or unknown features."""

from __future__ import annotations

import copy
import pickle
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain import catalogue as ep
from labdeck.domain.capabilities import Capabilities
from labdeck.domain.endpoints import PAGINATION, Endpoint, EndpointPath, UndeclaredRequest, shape
from labdeck.domain.features import Feature
from labdeck.domain.paths import has_dot_segment


def test_a_name_is_never_a_path() -> None:
    assert ep.PROTECTED_ENVIRONMENT_DELETE.path("acme/app", "..") == \
        "/projects/acme%2Fapp/protected_environments/%2E%2E"
    assert ep.PROJECT_TAG_DELETE.path(project=5, tag="v1/rc?#%") == \
        "/projects/5/repository/tags/v1%2Frc%3F%23%25"
    assert ep.GROUP_OWNED["variable_delete"].path(".", "K") == "/groups/%2E/variables/K"


def test_integer_segments_take_integers_only() -> None:
    assert ep.USER.path(17) == "/users/17"
    assert ep.USER.path("17") == "/users/17"
    with pytest.raises(ValueError):
        ep.USER.path("../17")
    with pytest.raises(TypeError):
        ep.USER.path(True)
    with pytest.raises(TypeError):
        ep.USER.path(1.5)


def test_every_segment_is_given_once() -> None:
    with pytest.raises(TypeError):
        ep.GROUP_BADGE.path("acme")
    with pytest.raises(TypeError):
        ep.GROUP_BADGE.path("acme", 1, 2)
    with pytest.raises(TypeError):
        ep.GROUP_BADGE.path("acme", badge_id=1, group="other")
    with pytest.raises(TypeError):
        ep.GROUP_BADGE.path(group="acme", badge=1)
    assert ep.GROUP.path("") == "/groups/"  # the client refuses it (unreadable identity), not the catalogue


@given(st.text(min_size=1, max_size=40), st.text(min_size=1, max_size=40))
def test_paths_read_back_as_the_values_they_were_built_from(project: str, name: str) -> None:
    path = ep.PROTECTED_ENVIRONMENT_DELETE.path(project, name)
    assert not has_dot_segment(path)
    assert path.count("/") == 4
    assert ep.PROTECTED_ENVIRONMENT_DELETE.match(path) == {"project": project, "name": name}
    assert ep.endpoint_for("DELETE", path) == (ep.PROTECTED_ENVIRONMENT_DELETE,
                                               {"project": project, "name": name})


def _which(method: str, path: str) -> Endpoint | None:
    found = ep.endpoint_for(method, path)
    return None if found is None else found[0]


def test_the_most_specific_endpoint_wins() -> None:
    assert _which("GET", "/groups/acme/badges/render") is ep.GROUP_BADGE_RENDER
    assert _which("GET", "groups/acme/badges/4") is ep.GROUP_BADGE
    assert _which("GET", "/groups/acme/members/all") is ep.GROUP_OWNED["members_all"]
    assert _which("POST", "/groups/import") is ep.GROUP_IMPORT
    assert ep.endpoint_for("GET", "/projects/1/repository/tags/v1/x?y=1") == (
        ep.PROJECT_TAG, {"project": "1", "tag": "v1/x"})
    assert ep.endpoint_for("DELETE", "/projects/1/nothing/here") is None
    assert ep.endpoint_for("PATCH", "/users/1") is None


def test_families_are_what_a_change_empties() -> None:
    assert ep.GROUP_OWNED["member_delete"].families("a/b", 3) == (
        "/groups/a%2Fb/members", "/groups/a%2Fb/billable_members")
    assert ep.PROJECT_OWNED["member_delete"].families("a/b", 3) == ("/projects/a%2Fb/members",)
    assert ep.PROJECT_FORK_RELATION.families("a/b", 9) == ("/projects/9/forks",)
    assert ep.DEPLOYMENT_CREATE.families(4) == ("/projects/4/deployments", "/projects/4/environments")


def test_the_catalogue_declares_each_endpoint_once() -> None:
    names = Counter(e.name for e in ep.ENDPOINTS)
    routes = Counter((e.method, e.shape) for e in ep.ENDPOINTS)
    assert all(names) and max(names.values()) == 1
    assert max(routes.values()) == 1
    assert ep.USER_MODERATION["ban"].name == "user_moderation.ban"
    assert ep.PROTECTED_ENVIRONMENT_DELETE.name == "protected_environment_delete"


def test_every_feature_held_is_declared_and_every_family_fills() -> None:
    from labdeck.domain.features import FEATURES

    for endpoint in ep.ENDPOINTS:
        assert endpoint.feature is None or endpoint.feature in FEATURES, endpoint.name
        values = {name: 1 for name, _ in endpoint.segments}
        for family in endpoint.families(**values):
            assert "{" not in family, endpoint.name


def test_endpoints_of_one_route_and_method_need_the_same_feature() -> None:
    """The sandbox mounts a route's method or not: the endpoints of one path and method must agree on the
    feature (one path's methods may differ: `PUT .../protected_environments/:name` came in 15.4)."""
    features: dict[tuple[str, str], set[Feature | None]] = {}
    for endpoint in ep.ENDPOINTS:
        features.setdefault((endpoint.shape, endpoint.method), set()).add(endpoint.feature)
    assert {k: v for k, v in features.items() if len(v) > 1} == {}


def test_capabilities_read_the_catalogues_features() -> None:
    ce = Capabilities(edition="ce", version=(13, 0, 0))
    for endpoint, reason in ((ep.PROTECTED_ENVIRONMENTS, "needs GitLab Premium"),
                             (ep.GROUP_RELATIONS_STATUS, "needs GitLab 13.12"),
                             (ep.CURRENT_JOB, "needs GitLab 13.10")):
        assert endpoint.feature is not None and ce.supports(endpoint.feature) == reason


def test_shape_forgets_segment_names() -> None:
    assert shape("/projects/{id}/repository/tags/{tag_name:path}") == \
        shape(ep.PROJECT_TAG.template) == "/projects/{}/repository/tags/{}"
    assert ep.endpoints_shaped("/projects/{id}/repository/tags", "get") == (ep.PROJECT_TAGS,)
    with pytest.raises(ValueError):
        Endpoint("GET", "/x/{y:float}")


def test_a_path_knows_its_endpoint_and_what_it_accepts() -> None:
    path = ep.GROUP_LABELS.path("acme")
    assert isinstance(path, EndpointPath) and path.endpoint is ep.GROUP_LABELS
    assert path == "/groups/acme/labels"
    for copied in (copy.copy(path), copy.deepcopy(path), pickle.loads(pickle.dumps(path))):
        assert copied == path and copied.endpoint == ep.GROUP_LABELS
    assert "search" in ep.GROUP_LABELS.accepted and PAGINATION <= ep.GROUP_LABELS.accepted
    assert ep.GROUP_LABEL.accepted == frozenset()  # one label: no pagination, no parameter


@given(st.sets(st.sampled_from(sorted(ep.ISSUES.accepted))), st.text(min_size=1, max_size=12))
def test_only_declared_parameters_and_the_declared_method_pass(declared: set[str], other: str) -> None:
    ep.ISSUES.refuse_undeclared("get", declared)
    if other not in ep.ISSUES.accepted:
        with pytest.raises(UndeclaredRequest):
            ep.ISSUES.refuse_undeclared("GET", {*declared, other})
    with pytest.raises(UndeclaredRequest):
        ep.ISSUES.refuse_undeclared("POST", declared)


def test_writes_declare_the_query_they_take_and_lists_are_paged() -> None:
    assert {e.name for e in ep.ENDPOINTS if e.method != "GET" and e.params} == {
        "instance_variable_update", "instance_variable_delete", "group_owned.variable_update",
        "group_owned.variable_delete", "project_owned.variable_update", "project_owned.variable_delete",
        "registry_tags_delete"}
    assert all(e.method == "GET" for e in ep.ENDPOINTS if e.paged)


def test_a_path_knows_when_a_value_is_an_unreadable_identity_and_a_name_is_only_a_name() -> None:
    """A negative id or an empty text is what a row whose id could not be read holds: the client refuses
    such a path. A tag or label *named* `-0` is a name (hypothesis found the client refusing it)."""
    from labdeck.domain import catalogue as ep

    assert ep.PROJECT_ISSUES.path(-3).placeholder and ep.PROJECT_ISSUES.path("").placeholder
    assert not ep.PROJECT_ISSUES.path(7).placeholder
    for named in (ep.PROJECT_TAG.path(7, "-0"), ep.GROUP_LABEL.path("acme", "-1")):
        assert not named.placeholder, named
    assert ep.PROJECT_TAG.path(-1, "v1").placeholder


def test_undo_rules_and_features_are_objects_held_by_their_endpoints() -> None:
    """No string names a model, an undo rule or a feature (issue 35): an endpoint holds its undo rule and
    its feature themselves, and the journal classifies a change with the rule its endpoint holds."""
    from labdeck.domain.journal_rules import classify
    from labdeck.domain.undo_rules import UndoRule

    assert not hasattr(ep.GROUP, "model")  # the model is the api's binding (`api/bindings.py`)
    for endpoint in ep.ENDPOINTS:
        assert endpoint.undo is None or isinstance(endpoint.undo, UndoRule), endpoint.name
        assert endpoint.feature is None or isinstance(endpoint.feature, Feature), endpoint.name
    op = classify("DELETE", "groups/acme/labels/bug")
    assert op.rule is ep.GROUP_LABEL_DELETE.undo and op.kind == "label.delete"
    assert classify("POST", "users/3/ban").rule is ep.USER_MODERATION["ban"].undo


def test_capabilities_read_the_feature_object_itself() -> None:
    """A feature is what the endpoint holds, not a name looked up: one declared nowhere else still says
    what it needs."""
    newer = Feature("x_feature", "X", introduced=(99, 1))
    premium = Feature("y_feature", "Y", premium=True)
    assert Capabilities(edition="ee", version=(17, 0, 0)).supports(newer) == "needs GitLab 99.1"
    assert Capabilities(edition="ce", version=(17, 0, 0)).supports(premium) == "needs GitLab Premium"
