"""The one path-segment encoder (`labdeck.domain.paths`): a name is never a path."""

from __future__ import annotations

from urllib.parse import unquote

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.paths import has_dot_segment, same_resource, segment

HOSTILE = st.one_of(
    st.sampled_from([".", "..", "../..", "%2E%2E", "a/b", "?x=1", "#top", "%", "%252E", " ", "..%2F", "~"]),
    st.text(min_size=1, max_size=30),
)


@given(HOSTILE)
def test_a_segment_is_one_segment_that_decodes_back(name: str) -> None:
    encoded = segment(name)
    assert not any(ch in encoded for ch in "/?#")
    assert encoded not in (".", "..")
    assert not has_dot_segment(encoded)
    assert unquote(encoded) == name


def test_dot_segments_are_encoded_as_gitlabs_clients_do() -> None:
    assert segment("..") == "%2E%2E" and segment(".") == "%2E"
    assert segment("acme/platform") == "acme%2Fplatform" and segment(26) == "26"
    assert segment("a%b") == "a%25b"


def test_same_resource_sees_a_collapsed_dot_segment() -> None:
    assert same_resource("/api/v4/projects/1/x%20y", "/api/v4/projects/1/x y")
    assert not same_resource("/api/v4/projects/1/protected_environments/..", "/api/v4/projects/1")
