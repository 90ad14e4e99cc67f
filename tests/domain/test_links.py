"""The one link policy (`domain.links.link_verdict`): only http(s) ever opens; http(s) on the instance's own
host opens at once; elsewhere asks first. Hosts are read as browsers read them (WHATWG), so a `\\`, a tab,
a user name or an odd host form never makes an outside link pass for the instance."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.links import LinkAction, is_openable, link_verdict, opens_without_asking, parse_link

INSTANCE = "https://gitlab.example.com"


@pytest.mark.parametrize("url", [
    "https://gitlab.example.com/acme/api/-/issues/3",
    "https://GITLAB.example.com:443/x",
    "http://gitlab.example.com/x",  # same host; http is still http(s)
    "  https://gitlab.example.com/x\n",  # browsers drop edge spaces and controls
    "https://gitlab%2Eexample.com/x",  # percent-decoded, as browsers do
])
def test_same_host_opens_without_asking(url: str) -> None:
    assert opens_without_asking(url, INSTANCE)


@pytest.mark.parametrize(("url", "host"), [
    ("https://evil.example\\@gitlab.example.com/x", "evil.example"),  # `\` is `/`: urlsplit saw the instance
    ("https://evil.example\\\\gitlab.example.com/", "evil.example"),
    ("https:\\\\evil.example/", "evil.example"),
    ("https:evil.example/x", "evil.example"),
    ("https:///evil.example/x", "evil.example"),
    ("https://evil.example#@gitlab.example.com", "evil.example"),
    ("https://evil.example?@gitlab.example.com", "evil.example"),
    ("https://ev\til.example/", "evil.example"),  # tabs and newlines are removed anywhere
    ("https://gitlab.example.com@evil.example/", "evil.example"),
    ("https://gitlab.example.com%2F@evil.example/", "evil.example"),
    ("https://user@evil.net@gitlab.example.com/", "gitlab.example.com"),  # a user name: asks, says where
    ("https://evil.example.net/gitlab.example.com", "evil.example.net"),
    ("https://gitlab.example.com.evil.net/", "gitlab.example.com.evil.net"),
    ("https://gitlab.example.com:8443/x", "gitlab.example.com:8443"),
    ("http://0x7f.1/", "127.0.0.1"),
    ("http://2130706433/", "127.0.0.1"),
    ("https://[0:0::1]:8080/", "[::1]:8080"),
    ("https://ｇｉｔｌａｂ.example.com/", "ｇｉｔｌａｂ.example.com"),  # non-ASCII: never on the instance
])
def test_outside_links_ask_and_name_where_they_go(url: str, host: str) -> None:
    verdict = link_verdict(url, INSTANCE)
    assert verdict.action is LinkAction.ASK and verdict.host == host
    assert not opens_without_asking(url, INSTANCE)


@pytest.mark.parametrize("url", [
    "javascript:alert(1)", "JavaScript:alert(1)", "java\tscript:alert(1)", " javascript:alert(1)",
    "file:///etc/passwd", "smb://gitlab.example.com/share", "ssh://gitlab.example.com/x",
    "data:text/html,<script>", "vbscript:x", "x-custom://gitlab.example.com/", "mailto:a@b.c",
    "not a url", "/relative/path", "", "https://", "https://evil@/x", "https://[::1/",
    "https://gitlab.example.com:99999/", "https://a b.example/", "https://%zz.example/",
    "https://%ff.example/", "http://256.1.1.1/", "http://1.2.3.4.5/",
])
def test_only_http_links_are_ever_opened(url: str) -> None:
    verdict = link_verdict(url, INSTANCE)
    assert verdict.action is LinkAction.REFUSE and not is_openable(url)


def test_what_the_browser_is_given_is_what_was_judged() -> None:
    verdict = link_verdict("https://evil.example\\@gitlab.example.com/a\\b?q=\\", INSTANCE)
    assert verdict.url == "https://evil.example/@gitlab.example.com/a/b?q=\\"
    assert parse_link(verdict.url) is not None and parse_link(verdict.url).host == "evil.example"  # type: ignore[union-attr]
    assert link_verdict("https://u:p@gitlab.example.com/x", INSTANCE).url == "https://gitlab.example.com/x"


HOSTILE = st.text(alphabet="\\/@:#?%.\t\n []abcegilmtxhps0123456789", max_size=40)


@given(prefix=st.sampled_from(["https://", "http://", "https:", "HTTPS://", " https:\\\\", "https:///"]),
       before=HOSTILE, after=HOSTILE)
def test_a_link_that_opens_at_once_goes_to_the_instance(prefix: str, before: str, after: str) -> None:
    url = f"{prefix}{before}gitlab.example.com{after}"
    verdict = link_verdict(url, INSTANCE)
    if verdict.action is LinkAction.OPEN:
        # what the browser is handed reads, plainly, as the instance; and so does the link as typed
        assert verdict.url.startswith(("https://gitlab.example.com/", "http://gitlab.example.com/"))
        assert parse_link(url) is not None and parse_link(url).host == "gitlab.example.com"  # type: ignore[union-attr]
        assert "@" not in url.split("gitlab.example.com")[0]


@given(scheme=st.text(alphabet="abcdefghijklmnopqrstuvwxyz+-.\t", min_size=1, max_size=12), rest=HOSTILE)
def test_no_other_scheme_ever_opens(scheme: str, rest: str) -> None:
    url = f"{scheme}:{rest}"
    if scheme.replace("\t", "").lower() not in ("http", "https"):
        assert link_verdict(url, INSTANCE).action is LinkAction.REFUSE
