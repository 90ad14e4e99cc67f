"""The `Link` header parser and formatter: round trips with `;` and `,` inside URLs."""

from __future__ import annotations

import httpx
from hypothesis import given
from hypothesis import strategies as st

from labdeck.api.pagination import format_link_header, page_from_headers, parse_link_header

URL_CHARS = st.sampled_from(list("abcxyz0189-._~:/?#[]@!$&'()*+,;=%\" "))
QUERY_VALUE = st.text(URL_CHARS, max_size=20).map(lambda s: s.replace(" ", "%20"))


@st.composite
def urls(draw: st.DrawFn) -> str:
    host = draw(st.sampled_from(["gitlab.example.com", "127.0.0.1:8080", "x.test"]))
    path = draw(st.text(st.sampled_from(list("abc/;,=-")), max_size=15))
    query = "&".join(f"k{i}={draw(QUERY_VALUE)}" for i in range(draw(st.integers(0, 4))))
    return f"https://{host}/api/v4/{path}" + (f"?{query}" if query else "")


RELS = st.sampled_from(["next", "prev", "first", "last"])


@given(st.dictionaries(RELS, urls(), min_size=1, max_size=4))
def test_round_trip_with_semicolons_and_commas(links: dict[str, str]) -> None:
    assert parse_link_header(format_link_header(links)) == links


def test_gitlab_header_with_semicolon_and_comma_in_query() -> None:
    next_url = "https://gl.test/api/v4/projects?search=a;b,c&page=2&per_page=20"
    last_url = "https://gl.test/api/v4/projects?search=a;b,c&page=9&per_page=20"
    header = f'<{next_url}>; rel="next", <{last_url}>; rel="last"'
    assert parse_link_header(header) == {"next": next_url, "last": last_url}
    # httpx's own parser gets this wrong, which is why we have ours.
    parsed = httpx.Response(200, headers={"link": header}).links
    assert parsed.get("next", {}).get("url") != next_url


def test_unquoted_and_multiple_rels_and_extra_params() -> None:
    header = '<https://a/x?p=2>;rel=next;title="a, b; c", <https://a/x?p=1>; rel="first prev"'
    assert parse_link_header(header) == {"next": "https://a/x?p=2", "first": "https://a/x?p=1",
                                         "prev": "https://a/x?p=1"}


def test_empty_and_garbage() -> None:
    assert parse_link_header(None) == {}
    assert parse_link_header("") == {}
    assert parse_link_header("not a link header") == {}
    assert parse_link_header("<https://a/x>") == {}


def test_page_from_headers_reads_x_headers_and_tolerates_absence() -> None:
    page = page_from_headers([1, 2], {"X-Page": "2", "X-Per-Page": "2", "X-Total": "9", "X-Total-Pages": "5",
                                      "X-Next-Page": "3", "X-Prev-Page": "1",
                                      "Link": '<https://a/x?page=3>; rel="next"'})
    assert (page.page, page.per_page, page.total, page.total_pages, page.next_page, page.prev_page) == (
        2, 2, 9, 5, 3, 1)
    assert page.next_url == "https://a/x?page=3"
    bare = page_from_headers([], {"x-next-page": "", "x-total": ""})
    assert bare.total is None and bare.next_page is None and not bare.has_next
