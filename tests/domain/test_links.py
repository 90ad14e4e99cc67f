"""The link policy: opening without asking only for http(s) on the instance's own host."""

from __future__ import annotations

import pytest

from labdeck.domain.links import is_openable, opens_without_asking

INSTANCE = "https://gitlab.example.com"


@pytest.mark.parametrize("url", [
    "https://gitlab.example.com/acme/api/-/issues/3",
    "https://GITLAB.example.com:443/x",
    "http://gitlab.example.com/x",  # same host; http is still http(s)
])
def test_same_host_opens_without_asking(url: str) -> None:
    assert opens_without_asking(url, INSTANCE)


@pytest.mark.parametrize("url", [
    "https://evil.example.net/gitlab.example.com",
    "https://gitlab.example.com.evil.net/",
    "https://gitlab.example.com:8443/x",
    "javascript:alert(1)",
    "file:///etc/passwd",
    "ssh://gitlab.example.com/x",
    "https://user@evil.net@gitlab.example.com/",  # hostname is gitlab.example.com: still same host
    "not a url",
])
def test_everything_else_asks(url: str) -> None:
    expected = url == "https://user@evil.net@gitlab.example.com/"
    assert opens_without_asking(url, INSTANCE) is expected


def test_only_http_links_are_openable() -> None:
    assert is_openable("https://example.org/x")
    assert not is_openable("javascript:alert(1)")
    assert not is_openable("file:///etc/passwd")
    assert not is_openable("https://[::1")  # malformed
