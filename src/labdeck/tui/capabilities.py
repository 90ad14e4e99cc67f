"""What the TUI offers on this instance: the session's `Capabilities` (edition and version) and its token
kind decide which areas, tabs and actions exist. Screens ask here instead of trying and showing a raw
403 or 404.

- `feature_reason(ctx, feature)`: None when the feature can work, else a short reason ("needs GitLab
  Premium", "needs GitLab 15.2", "not reachable with a CI job token"): the context's `Policy` decides.
- `area_reason(ctx, area_name)`: the same for a whole area (home, `:` and the palette leave such areas out).
- `unavailable(ctx, feature)`: the sentence shown where the data would be.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labdeck.api.errors import ApiError
from labdeck.domain.capabilities import PREMIUM
from labdeck.domain.features import Feature
from labdeck.tui.areas import Area, admin_only_message

if TYPE_CHECKING:
    from labdeck.tui.context import Context


def feature_reason(ctx: Context, feature: Feature) -> str | None:
    """Why `feature` cannot work here, or None."""
    return ctx.policy.feature_reason(feature)


def area_reason(ctx: Context, area_name: str) -> str | None:
    """Why the area cannot work here, or None."""
    return ctx.policy.area_reason(area_name)


def area_refusal(ctx: Context, area: Area) -> str | None:
    """What asking for `area` says when it cannot open, or None: what the token or instance cannot reach
    first (a CI job token reaches no administrators' area either, whoever ran the job), then the
    administrators' areas for everyone else."""
    reason = area_reason(ctx, area.name)
    if reason is not None:
        return f"{area.title}: {reason}"
    if area.admin_only and not ctx.is_admin:
        return admin_only_message(area)
    return None


def unavailable(ctx: Context, feature: Feature, reason: str | None = None) -> str:
    """`Iterations: needs GitLab Premium` (short enough for 80 columns; the status bar names the instance's
    edition and version)."""
    reason = reason or feature_reason(ctx, feature) or PREMIUM
    return f"{feature.title}: {reason}"


def refused(ctx: Context, feature: Feature, error: BaseException) -> str | None:
    """The sentence for a premium feature that an Enterprise instance refused: 403, or the bare 404 of a
    route it does not serve (`404 Not Found`, not `404 Project Not Found`). None for other errors, which keep
    their own message."""
    if not feature.premium or not isinstance(error, ApiError):
        return None
    if error.status == 403 or (error.status == 404 and str(error.message).strip() == "404 Not Found"):
        return unavailable(ctx, feature, f"{PREMIUM} (the instance refused: {error.status})")
    return None
