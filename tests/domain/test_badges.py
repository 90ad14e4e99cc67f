"""Badge URL rules (GitLab's `Badge` model and `doc/api/group_badges.md`): every placeholder, http(s) only."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.badges import PLACEHOLDERS, SCHEME_ERROR, badge_errors, render_url, url_error


def test_the_eleven_documented_placeholders() -> None:
    assert PLACEHOLDERS == ("project_path", "project_title", "project_name", "project_id",
                            "project_namespace", "group_name", "gitlab_server", "gitlab_pages_domain",
                            "default_branch", "commit_sha", "latest_tag")
    url = "https://x/" + "/".join(f"%{{{name}}}" for name in PLACEHOLDERS) + "/%{unknown}"
    values = {name: name.upper() for name in PLACEHOLDERS} | {"latest_tag": None}
    expected = "https://x/" + "/".join(n.upper() for n in PLACEHOLDERS[:-1]) + "//%{unknown}"
    assert render_url(url, values) == expected


def test_only_http_and_https() -> None:
    for good in ("http://a.example", "HTTPS://a.example/%{project_id}?x=1"):
        assert url_error(good) is None
    for bad in ("javascript:alert(1)", "ftp://a.example", "//a.example", "%{project_path}", "https://", "",
                "data:text/html,x"):
        assert url_error(bad) == SCHEME_ERROR
    assert badge_errors("ftp://a", None) == {"link_url": [SCHEME_ERROR]}
    assert badge_errors(None, None) == {}


@given(st.text())
def test_rendering_never_fails_and_only_touches_placeholders(text: str) -> None:
    rendered = render_url(text, {})
    if "%{" not in text:
        assert rendered == text
