"""Capabilities: the edition and version read from `/metadata` or `/version`, and why a feature is missing."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.capabilities import (
    FEATURES,
    PREMIUM,
    Capabilities,
    capabilities_from_version,
    parse_version,
)
from labdeck.domain.features import BILLABLE_MEMBERS, ITERATIONS, RELATIONS_EXPORT
from labdeck.domain.job_tokens import project_path_from_job_url


@pytest.mark.parametrize(("body", "edition", "version", "label"), [
    ({"version": "16.11.0-ee", "enterprise": True}, "ee", (16, 11, 0), "GitLab 16.11.0 EE"),
    ({"version": "16.11.0", "enterprise": False}, "ce", (16, 11, 0), "GitLab 16.11.0 CE"),
    ({"version": "15.0.3-ee", "revision": "abc"}, "ee", (15, 0, 3), "GitLab 15.0.3 EE"),  # before 15.6
    ({"version": "14.10.5", "revision": "abc"}, "ce", (14, 10, 5), "GitLab 14.10.5 CE"),
    ({"version": "17.7.0-pre", "revision": "abc"}, None, (17, 7, 0), "GitLab 17.7.0-pre"),  # gitlab.com style
    ({"version": "17.7.0-pre", "enterprise": True}, "ee", (17, 7, 0), "GitLab 17.7.0 EE"),
    ({"version": "8.13.0-pre", "revision": "4e963fe"}, None, (8, 13, 0), "GitLab 8.13.0-pre"),
    ({"version": "nonsense"}, None, None, ""),
    ([], None, None, ""),
    ({"version": None, "enterprise": "yes"}, None, None, ""),
])
def test_edition_and_version_from_the_answer(body: Any, edition: str | None,
                                             version: tuple[int, int, int] | None, label: str) -> None:
    found = capabilities_from_version(body)
    assert (found.edition, found.version, found.label()) == (edition, version, label)


def test_premium_features_need_premium_on_ce_only() -> None:
    newest = max(feature.introduced or (0, 0) for feature in FEATURES)  # every feature is there
    ce = Capabilities(edition="ce", version=(*newest, 0))
    ee = Capabilities(edition="ee", version=(*newest, 0))
    unknown = Capabilities()
    for feature in FEATURES:
        if feature.premium:
            assert ce.supports(feature) == PREMIUM
        assert ee.supports(feature) is None
        assert unknown.supports(feature) is None  # nothing known, nothing hidden


def test_features_newer_than_the_version_name_the_version() -> None:
    old = Capabilities(edition="ee", version=(13, 4, 2))
    assert old.supports(ITERATIONS) == "needs GitLab 13.5"
    assert old.supports(RELATIONS_EXPORT) == "needs GitLab 13.12"
    assert old.supports(BILLABLE_MEMBERS) is None
    assert Capabilities(edition="ce", version=(13, 0, 0)).supports(ITERATIONS) == "needs GitLab 13.5"
    assert Capabilities(edition="ee", version=(13, 12, 0)).supports(RELATIONS_EXPORT) is None


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=30),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["version", "revision", "enterprise", "kas"]), inner, max_size=4),
                    max_leaves=10))
def test_any_answer_reads_without_raising(body: Any) -> None:
    found = capabilities_from_version(body)
    assert found.edition in (None, "ce", "ee")
    assert isinstance(found.label(), str)
    for feature in FEATURES:
        reason = found.supports(feature)
        assert reason in (None, PREMIUM) or reason.startswith("needs GitLab ")


@given(st.integers(0, 999), st.integers(0, 999), st.integers(0, 999), st.sampled_from(["", "-ee", "-pre"]))
def test_version_round_trip(major: int, minor: int, patch: int, suffix: str) -> None:
    assert parse_version(f"{major}.{minor}.{patch}{suffix}") == ((major, minor, patch), suffix[1:])


@pytest.mark.parametrize(("url", "base", "path"), [
    ("https://gl.example/acme/app/-/jobs/7", "https://gl.example", "acme/app"),
    ("https://gl.example/gitlab/acme/sub/app/-/jobs/7", "https://gl.example/gitlab", "acme/sub/app"),
    ("https://gl.example/acme/app/-/pipelines/7", "https://gl.example", None),
    ("https://gl.example/other/acme/app/-/jobs/7", "https://gl.example/gitlab", None),
    ("", "https://gl.example", None),
])
def test_project_path_from_a_job_url(url: str, base: str, path: str | None) -> None:
    assert project_path_from_job_url(url, base) == path
