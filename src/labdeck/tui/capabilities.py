"""What the TUI offers on this instance: the session's `Capabilities` (edition and version) and its token
kind decide which areas, tabs and actions exist. Screens ask here instead of trying and showing a raw
403 or 404.

- `feature_reason(app, feature)`: None when the feature can work, else a short reason ("needs GitLab
  Premium", "needs GitLab 15.2", "not reachable with a CI job token").
- `area_reason(app, area_name)`: the same for a whole area (home, `:` and the palette leave such areas out).
- `unavailable(app, feature)`: the sentence shown where the data would be.
"""

from __future__ import annotations

from typing import Any

from labdeck.api.errors import ApiError
from labdeck.domain.capabilities import FEATURES, PREMIUM
from labdeck.domain.job_tokens import JOB_TOKEN_AREAS, JOB_TOKEN_UNREACHABLE, NOT_WITH_JOB_TOKEN


def _session(app: Any) -> Any:
    return getattr(app, "session", None)


def job_token(app: Any) -> bool:
    """Whether the app is signed in with a CI job token."""
    session = _session(app)
    return session is not None and session.settings.auth == "job"


def feature_reason(app: Any, feature: str) -> str | None:
    """Why `feature` cannot work here, or None."""
    session = _session(app)
    if session is None:
        return None
    if job_token(app) and feature in JOB_TOKEN_UNREACHABLE:
        return NOT_WITH_JOB_TOKEN
    return session.capabilities.supports(feature)  # type: ignore[no-any-return]


def area_reason(app: Any, area_name: str) -> str | None:
    """Why the area cannot work here, or None."""
    if job_token(app) and area_name not in JOB_TOKEN_AREAS:
        return NOT_WITH_JOB_TOKEN
    return None


def area_allowed(app: Any) -> Any:
    """A predicate over areas for `shown_areas` and `complete`."""
    return lambda area: area_reason(app, area.name) is None


def unavailable(app: Any, feature: str, reason: str | None = None) -> str:
    """`Iterations: needs GitLab Premium` (short enough for 80 columns; the status bar names the instance's
    edition and version)."""
    reason = reason or feature_reason(app, feature) or PREMIUM
    title = FEATURES[feature].title if feature in FEATURES else feature.replace("_", " ").capitalize()
    return f"{title}: {reason}"


def refused(app: Any, feature: str, error: BaseException) -> str | None:
    """The sentence for a premium feature that an Enterprise instance refused: 403, or the bare 404 of a
    route it does not serve (`404 Not Found`, not `404 Project Not Found`). None for other errors, which keep
    their own message."""
    feature_info = FEATURES.get(feature)
    if feature_info is None or not feature_info.premium or not isinstance(error, ApiError):
        return None
    if error.status == 403 or (error.status == 404 and str(error.message).strip() == "404 Not Found"):
        return unavailable(app, feature, f"{PREMIUM} (the instance refused: {error.status})")
    return None
