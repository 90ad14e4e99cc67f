"""Was a form's write applied? After a lost answer the Labels and Badges panes of `:groups` re-read their
target (each pane's editor, `editors.py`), and these say whether what was re-read holds what the form sent:
a label of that name and colour, a badge with those URLs. The matchers are pure (they compare models with
the form's values); members and variables have their own, whatever their owner (`kit/members.py`,
`kit/variables.py`).
"""

from __future__ import annotations

from collections.abc import Iterable

from labdeck.api.models.badges import Badge
from labdeck.api.models.labels import GroupLabel
from labdeck.domain.colours import ColourError, normalise_colour
from labdeck.tui.kit.forms import Values


def _colour(text: str | None) -> str:
    try:
        return normalise_colour(text or "")
    except ColourError:
        return (text or "").strip().lower()


def labels_hold(labels: Iterable[GroupLabel], values: Values) -> bool:
    """A label with the form's name, colour and (when given) description."""
    description = str(values.get("description") or "")
    return any(label.name == values["name"] and _colour(label.color) == _colour(str(values["color"]))
               and (not description or (label.description or "") == description) for label in labels)


def badge_holds(badge: Badge, values: Values) -> bool:
    name = str(values.get("name") or "")
    return (badge.link_url == values["link_url"] and badge.image_url == values["image_url"]
            and (not name or badge.name == name))
