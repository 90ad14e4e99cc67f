"""Failed deployments in a window (`domain.deploy_failures`, issue 34): the one definition the overview and
the deployments board count by. The window's bounds are the listing filter's (GitLab's `updated_after`
includes its instant, `app/models/concerns/updated_at_filterable.rb`), so asking the server and
filtering what is held agree; a count states what it covers."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from labdeck.domain.deploy_failures import Coverage, FailureWindow
from labdeck.domain.deployments import updated_within

NOW = datetime(2026, 3, 10, 12, 0, 0, 250_000, tzinfo=UTC)


@dataclass(frozen=True)
class Held:
    status: str
    updated_at: datetime | None


def test_the_window_holds_failures_of_the_last_24_hours_bounds_included() -> None:
    window = FailureWindow(NOW)
    assert window.since == datetime(2026, 3, 9, 12, 0, 0, tzinfo=UTC)  # whole seconds, as the query
    assert window.holds("failed", window.since) and window.holds("failed", NOW)
    assert not window.holds("failed", window.since - timedelta(microseconds=1))
    assert not window.holds("failed", NOW + timedelta(seconds=1))  # after now: not yet
    assert not window.holds("success", NOW - timedelta(hours=1))
    assert not window.holds("canceled", NOW - timedelta(hours=1))
    assert not window.holds("failed", None)
    held = [Held("failed", NOW - timedelta(hours=2)), Held("success", NOW),
            Held("failed", NOW - timedelta(days=2))]
    assert window.failed(held) == [held[0]]
    assert FailureWindow(NOW, timedelta(hours=1)).words == "last 1 hour" and window.words == "last 24 hours"


@given(st.datetimes(min_value=datetime(2026, 3, 8), max_value=datetime(2026, 3, 11),
                    timezones=st.just(UTC)),
       st.sampled_from(["failed", "success", "canceled", "running", "created"]))
def test_asking_the_server_and_filtering_what_is_held_agree(updated: datetime, status: str) -> None:
    """The server answers `status=failed&updated_after=since` with `updated_within(updated, since)`; the
    overview keeps what it answered up to now, the board filters its 30 days: the same deployments."""
    window = FailureWindow(NOW)
    asked = status == "failed" and updated_within(updated, window.since) and updated <= window.now
    assert window.holds(status, updated) == asked


def test_the_figure_and_its_scope_in_words() -> None:
    window = FailureWindow(NOW)
    assert window.count_text(0) == "no deployment failed in 24h"
    assert window.count_text(1) == "1 deployment failed in 24h"
    assert window.count_text(1200) == "1,200 deployments failed in 24h"
    assert Coverage(36, 36).text() == "36 projects" and Coverage(1, 1).text() == "1 project"
    assert Coverage(30, 36).text() == "30 of 36 projects (request budget)"
    assert not Coverage(30, 36).complete and Coverage(33, 36, ("a", "b", "c")).complete
    assert Coverage(31, 36, ("a", "b", "c", "d")).text() == \
        "35 of 36 projects (request budget); 4 unreadable: a, b, c and 1 more"
    assert Coverage(35, 36, ("fleet/x",)).text() == "36 projects; 1 unreadable: fleet/x"
