"""The issue filter language: parse, format (round trip) and compile to listing parameters."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from labdeck.domain.issue_listing import NOT_KEYS, compile
from labdeck.domain.issue_query import (
    GLOBAL,
    GROUP,
    KEYS,
    TEXT,
    IssueQuery,
    QueryError,
    Term,
    format,
    help_text,
    parse,
)

EXAMPLE = ('label:bug -label:wontfix author:alice assignee:none milestone:"v2.0" state:opened '
           'confidential:true due:overdue type:incident "free text" iid:12 weight:3 reaction:thumbsup '
           'updated>2024-01-01 created<2024-06-01 in:title')


def test_parse_example() -> None:
    query = parse(EXAMPLE)
    assert query.terms[:3] == (Term("label", "bug"), Term("label", "wontfix", negated=True),
                               Term("author", "alice"))
    assert Term("milestone", "v2.0") in query.terms
    assert Term(TEXT, "free text") in query.terms
    assert Term("updated", "2024-01-01", op=">") in query.terms
    assert Term("created", "2024-06-01", op="<") in query.terms
    assert len(query.terms) == 16


@pytest.mark.parametrize(("text", "labels"), [
    ("label:bug", ("bug",)),
    ('label:"good first issue" -label:wontfix label:priority::high label:bug', ("good first issue",
                                                                                "priority::high", "bug")),
    ("label:bug label:bug", ("bug",)),
    ("label:none", ()), ("label:Any", ()), ("-label:bug", ()), ('"label:bug"', ()),
])
def test_the_labels_a_query_requires(text: str, labels: tuple[str, ...]) -> None:
    """What the issues list shows first in its Labels cell (issue 34): the labels every match has."""
    assert parse(text).required_labels() == labels


def test_compile_example_for_global_listing() -> None:
    assert compile(parse(EXAMPLE), GLOBAL) == {
        "labels": "bug",
        "not": {"labels": "wontfix"},
        "author_username": "alice",
        "assignee_id": "None",
        "milestone": "v2.0",
        "state": "opened",
        "confidential": "true",
        "due_date": "overdue",
        "issue_type": "incident",
        "search": "free text",
        "in": "title",
        "iids": [12],
        "weight": 3,
        "my_reaction_emoji": "thumbsup",
        "updated_after": "2024-01-01",
        "created_before": "2024-06-01",
    }


def test_group_listing_has_no_in() -> None:
    with pytest.raises(QueryError, match="in:title"):
        compile(parse(EXAMPLE), GROUP)
    assert compile(parse(EXAMPLE.replace(" in:title", "")), GROUP)["search"] == "free text"


@pytest.mark.parametrize(
    ("text", "listing", "params"),
    [
        ("label:a label:b label:a", GLOBAL, {"labels": "a,b"}),
        ("label:none", GLOBAL, {"labels": "None"}),
        ("label:Any", GLOBAL, {"labels": "Any"}),
        ("-label:x -label:y", GROUP, {"not": {"labels": "x,y"}}),
        ("assignee:any", GLOBAL, {"assignee_id": "Any"}),
        ("-assignee:none", GLOBAL, {"assignee_id": "Any"}),
        ("assignee:@bob", GLOBAL, {"assignee_username": "bob"}),
        ("assignee_id:7", GLOBAL, {"assignee_id": 7}),
        ("-assignee:bob", GROUP, {"not": {"assignee_username": "bob"}}),
        ("author_id:3", GLOBAL, {"author_id": 3}),
        ("-author:eve", GLOBAL, {"not": {"author_username": "eve"}}),
        ("milestone:any", GLOBAL, {"milestone": "Any"}),
        ("-milestone:v1", GROUP, {"not": {"milestone": "v1"}}),
        ("due:none", GLOBAL, {"due_date": "0"}),
        ("due:next_month_and_previous_two_weeks", GROUP, {"due_date": "next_month_and_previous_two_weeks"}),
        ("-confidential:true", GLOBAL, {"confidential": "false"}),
        ("iid:1 iid:2", GROUP, {"iids": [1, 2]}),
        ("-iid:5", GLOBAL, {"not": {"iids": [5]}}),
        ("-weight:2", GLOBAL, {"not": {"weight": 2}}),
        ("weight:none", GROUP, {"weight": "None"}),
        ("reaction:any", GLOBAL, {"my_reaction_emoji": "Any"}),
        ("-reaction:tada", GROUP, {"not": {"my_reaction_emoji": "tada"}}),
        ("iteration:none", GLOBAL, {"iteration_id": "None"}),
        ("iteration:Sprint-3", GLOBAL, {"iteration_title": "Sprint-3"}),
        ("-iteration:Sprint-3", GLOBAL, {"not": {"iteration_title": "Sprint-3"}}),
        ("scope:all state:closed", GLOBAL, {"scope": "all", "state": "closed"}),
        ("STATE:Opened", GLOBAL, {"state": "opened"}),
        ("bug crash", GLOBAL, {"search": "bug crash"}),
        ("-crash", GROUP, {"not": {"search": "crash"}}),
        ("crash in:title,description", GLOBAL, {"search": "crash", "in": "title,description"}),
        ("created>2024-01-01T10:00:00Z", GLOBAL, {"created_after": "2024-01-01T10:00:00Z"}),
        ("", GLOBAL, {}),
    ],
)
def test_compile(text: str, listing: str, params: dict[str, object]) -> None:
    assert compile(parse(text), listing) == params  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "listing", "message"),
    [
        ("author:alice author:bob", GLOBAL, "conflicts with author:alice"),
        ("author:alice author_id:3", GLOBAL, "cannot be combined"),
        ("assignee:alice assignee_id:3", GLOBAL, "cannot be combined"),
        ("assignee:alice assignee:none", GLOBAL, "cannot be combined"),
        ("milestone:a milestone:b", GROUP, "conflicts"),
        ("-reaction:tada", GLOBAL, "cannot negate reaction"),
        ("-iid:3", GROUP, "cannot negate iid"),
        ("-weight:3", GROUP, "cannot negate weight"),
        ("-iteration:x", GROUP, "cannot negate iteration"),
        ("-crash", GLOBAL, "cannot negate"),
        ("-state:opened", GROUP, "cannot negate state"),
        ("-updated>2024-01-01", GLOBAL, "dates cannot be negated"),
        ("label:a,b", GLOBAL, "comma"),
        ("label:none label:bug", GLOBAL, "cannot be combined with other labels"),
        ("-label:none", GLOBAL, "use label:any"),
        ("in:title", GLOBAL, "needs free text"),
        ("state:opened state:closed", GLOBAL, "conflicts"),
    ],
)
def test_compile_refuses_what_the_listing_cannot_express(text: str, listing: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        compile(parse(text), listing)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("foo:bar", "unknown filter 'foo'"),
        ("state:weird", "use one of"),
        ("label:", "needs a value"),
        ('"unclosed', "unclosed quote"),
        ('label:"a"b', "after a closing quote"),
        ('lab"el', "stray quote"),
        ("updated:2024-01-01", "use updated< or updated>"),
        ("label>x", "label> is not a filter"),
        ("updated>yesterday", "expected a date"),
        ("iid:abc", "takes a number"),
        ("weight:heavy", "use a number"),
        ("in:body", "in:body is not valid"),
        ('""', "empty free text"),
    ],
)
def test_parse_errors(text: str, message: str) -> None:
    with pytest.raises(QueryError, match=message):
        parse(text)


def test_quoting_and_escapes() -> None:
    query = parse(r'label:"needs review" "say \"hi\"" "back\\slash" -"-dash" "http://x"')
    assert query.terms == (
        Term("label", "needs review"),
        Term(TEXT, 'say "hi"'),
        Term(TEXT, "back\\slash"),
        Term(TEXT, "-dash", negated=True),
        Term(TEXT, "http://x"),
    )
    assert format(query) == r'label:"needs review" "say \"hi\"" "back\\slash" -"-dash" "http://x"'


def test_format_example_is_stable() -> None:
    assert format(parse(EXAMPLE)) == EXAMPLE.replace('"v2.0"', "v2.0")
    assert parse("  label:a\t\n author:b  ") == IssueQuery((Term("label", "a"), Term("author", "b")))
    assert not parse("")


def test_help_lists_every_key() -> None:
    text = help_text()
    assert all(key in text for key in KEYS)


# ------------------------------------------------------------------------------------- properties

FREE = st.text(min_size=1, max_size=12)
NUMBER = st.integers(0, 10**9).map(str)
VALUES: dict[str, st.SearchStrategy[str]] = {
    "label": FREE, "author": FREE, "milestone": FREE, "iteration": FREE, "reaction": FREE,
    "assignee": st.one_of(FREE, st.sampled_from(["none", "any"])),
    "author_id": NUMBER, "assignee_id": NUMBER, "iid": NUMBER,
    "weight": st.one_of(NUMBER, st.sampled_from(["none", "any"])),
    "state": st.sampled_from(["opened", "closed", "all"]),
    "scope": st.sampled_from(["created_by_me", "assigned_to_me", "all"]),
    "confidential": st.sampled_from(["true", "false"]),
    "due": st.sampled_from(["overdue", "week", "month", "next_month_and_previous_two_weeks", "none", "0"]),
    "type": st.sampled_from(["issue", "incident", "test_case"]),
    "in": st.sampled_from(["title", "description", "title,description"]),
    "created": st.dates().map(lambda d: d.isoformat()),
    "updated": st.datetimes().map(lambda d: d.isoformat()),
}


@st.composite
def terms(draw: st.DrawFn) -> Term:
    key = draw(st.sampled_from([TEXT, *VALUES]))
    negated = draw(st.booleans())
    if key == TEXT:
        return Term(TEXT, draw(FREE), negated)
    op = draw(st.sampled_from("<>")) if key in ("created", "updated") else ":"
    return Term(key, draw(VALUES[key]), negated, op)


QUERIES = st.lists(terms(), max_size=8).map(lambda ts: IssueQuery(tuple(ts)))


# The first st.text() draw builds Hypothesis's Unicode tables, which can take over a second on a cold cache.
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(QUERIES)
def test_format_parse_round_trip(query: IssueQuery) -> None:
    assert parse(format(query)) == query


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(QUERIES, st.sampled_from([GLOBAL, GROUP]))
def test_compile_only_uses_the_listings_not_keys(query: IssueQuery, listing: str) -> None:
    try:
        params = compile(query, listing)  # type: ignore[arg-type]
    except QueryError as error:
        assert str(error)
        return
    assert set(params.get("not", {})) <= NOT_KEYS[listing]  # type: ignore[index]
    if listing == GROUP:
        assert "in" not in params


@pytest.mark.parametrize("text", ["label:bug OR label:feature", "crash OR hang", "label:bug || label:p1",
                                  "author:alice | author:bob"])
def test_or_is_explained_not_read_as_free_text(text: str) -> None:
    from labdeck.domain.issue_query import parse

    with pytest.raises(QueryError, match="cannot express OR") as caught:
        parse(text)
    assert "[views]" in str(caught.value)  # says what can be done instead


def test_a_quoted_or_is_free_text() -> None:
    from labdeck.domain.issue_query import parse

    assert [t.value for t in parse('crash "OR" hang').terms] == ["crash", "OR", "hang"]
