"""What a read-only session may POST to GitLab's GraphQL endpoint (issue 32 item 7): a JSON body with `query`,
`variables` and `operationName` only, whose document holds query operations only, and no query string.

GitLab's `GraphqlController` (app/controllers/graphql_controller.rb) reads `params`, in which Rails merges
the URL's query parameters over the body's (`ActionDispatch::Request#parameters`: `request_parameters.merge(
query_parameters)`), so `?query=mutation...` replaces the body's document; a body holding `_json` (an array)
is executed as a multiplex of every document in it (`multiplex?`: `params[:_json].is_a?(Array)`); and a form
or multipart body is read as parameters too. Each of these is refused, whatever else the request holds."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.read_only import GRAPHQL_PATH, graphql_query, refusal

GRAPHQL_KEYS = {"query", "variables", "operationName"}  # `permitted_standalone_query_params`

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True)
KINDS = st.sampled_from(["query", "mutation", "subscription", "{"])  # "{": the shorthand query


def _operation(kind: str, name: str) -> str:
    return "{ currentUser { id } }" if kind == "{" else f"{kind} {name} {{ x {{ id }} }}"


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, bool]:
    """A document of one to four operations (and maybe a fragment); True when every operation is a query."""
    kinds = draw(st.lists(KINDS, min_size=1, max_size=4))
    if kinds.count("{") > 1 or ("{" in kinds and len(kinds) > 1):
        kinds = [k for k in kinds if k != "{"] or ["{"]  # a shorthand query must be the only operation
    names = draw(st.lists(NAMES, min_size=len(kinds), max_size=len(kinds), unique=True))
    parts = [_operation(k, n) for k, n in zip(kinds, names, strict=True)]
    if draw(st.booleans()):
        parts.insert(draw(st.integers(0, len(parts))), "fragment F on T { y }")
    return " ".join(parts), all(k in ("query", "{") for k in kinds)


def _body(document: str, draw_extra: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"query": document, "variables": {"id": "gid://gitlab/Project/1"}, "operationName": None,
            **(draw_extra or {})}


@given(documents())
def test_a_document_is_sent_only_when_every_operation_is_a_query(case: tuple[str, bool]) -> None:
    document, reads = case
    why = refusal("POST", GRAPHQL_PATH, _body(document))
    assert (why is None) == reads, (document, why)


@given(documents(), NAMES.filter(lambda n: n not in GRAPHQL_KEYS) | st.just("_json"),
       st.one_of(st.none(), st.text(max_size=5), st.lists(st.dictionaries(st.just("query"), st.text())),
                 st.integers()))
def test_no_key_beside_query_variables_and_operation_name(case: tuple[str, bool], key: str,
                                                          value: Any) -> None:
    """`_json` makes GitLab run every document in it (a multiplex), whatever `query` says."""
    document, _ = case
    assert refusal("POST", GRAPHQL_PATH, _body(document, {key: value})) is not None
    assert not graphql_query(_body(document, {key: value}))


@given(documents(), st.text(min_size=1, max_size=40))
def test_no_query_string(case: tuple[str, bool], query: str) -> None:
    """Rails takes `?query=` over the body's `query`: the document checked would not be the one run."""
    document, _ = case
    assert refusal("POST", GRAPHQL_PATH, _body(document), query=query) is not None


@given(documents())
def test_no_body_beside_the_json(case: tuple[str, bool]) -> None:
    """A form or multipart body (or raw content) goes out instead of the JSON that was checked."""
    document, _ = case
    assert refusal("POST", GRAPHQL_PATH, _body(document), other_body=True) is not None


@given(st.one_of(st.integers(), st.text(), st.lists(st.text()), st.booleans()))
def test_variables_and_operation_name_have_their_types(value: Any) -> None:
    query = "{ currentUser { id } }"
    assert refusal("POST", GRAPHQL_PATH, {"query": query, "variables": value}) is not None
    if not isinstance(value, str):
        assert refusal("POST", GRAPHQL_PATH, {"query": query, "operationName": value}) is not None


def test_the_allowed_shape_still_reads() -> None:
    assert refusal("POST", GRAPHQL_PATH, {"query": "{ currentUser { id } }"}) is None
    assert refusal("POST", GRAPHQL_PATH, {"query": "query A { a } query B { b }", "operationName": "B",
                                          "variables": None}) is None
    assert refusal("POST", GRAPHQL_PATH, [{"query": "{ a }"}]) is not None  # a batch is a multiplex
    assert refusal("GET", GRAPHQL_PATH, None, query="query=mutation { x }") is None  # GitLab refuses
    # mutations in GET requests itself (`disallow_mutations_for_get`)
