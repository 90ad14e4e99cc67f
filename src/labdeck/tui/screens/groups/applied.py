"""Was a form's write applied? After a lost answer the forms of the groups view (and the project members
tab and the instance variables, which use the same forms) re-read their target, and these say whether what
was re-read holds what the form sent: the members at that level and expiry, a label of that name and
colour, a badge with those URLs, a variable of that key and scope with that value and those flags. The
matchers are pure (they compare models with the form's values); each tab's editor (`editors.py`) does
the re-read.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from labdeck.api.models.badges import Badge
from labdeck.api.models.labels import GroupLabel
from labdeck.api.models.members import Member
from labdeck.api.models.variables import CiVariable
from labdeck.domain.colours import ColourError, normalise_colour
from labdeck.tui.screens.groups.forms import Values, variable_options


def _day(value: date | str | None) -> str:
    if value is None:
        return ""
    return value.isoformat() if isinstance(value, date) else str(value)


def members_hold(members: Iterable[Member], user_ids: Iterable[int], values: Values) -> bool:
    """Every user of `user_ids` is a member at the form's level, with its expiry."""
    by_id = {member.id: member for member in members}
    level, expires = int(values["access_level"]), str(values.get("expires_at") or "")
    wanted = list(user_ids)
    return bool(wanted) and all(
        uid in by_id and by_id[uid].access_level == level and _day(by_id[uid].expires_at) == expires
        for uid in wanted)


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


def variables_hold(variables: Iterable[CiVariable], values: Values, *, key: str, scope: str | None,
                   before: CiVariable | None = None) -> bool:
    """A variable `key` (of `scope`, None for instance variables) with the form's value and flags. A value
    the server does not send back (hidden) cannot be compared: the flags must then match."""
    options = variable_options(values, before)
    for variable in variables:
        if variable.key != key or (scope is not None and (variable.environment_scope or "*") != scope):
            continue
        if variable.value is not None and variable.value != values["value"]:
            return False
        flags = (("variable_type", variable.variable_type), ("protected", variable.protected),
                 ("masked", variable.masked), ("raw", variable.raw))
        return all(seen is None or seen == options[name] for name, seen in flags)
    return False
