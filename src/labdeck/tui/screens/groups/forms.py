"""The label form of the groups view (the badge form is in `badge_form.py`, the forms that name a local
file or folder in `file_forms.py`). Validation uses the domain rules the sandbox enforces too
(`domain.colours`), so a form never sends what the server would refuse for these reasons. The form itself
is the kit's (`kit/forms.FormScreen`).
"""

from __future__ import annotations

from labdeck.api.models.labels import GroupLabel
from labdeck.domain.colours import COLOUR_ERROR, is_colour
from labdeck.tui.kit.forms import Field, FormScreen, Values, required


def label_form(label: GroupLabel | None = None) -> FormScreen:
    fields = [Field("name", "Name", label.name if label else ""),
              Field("color", "Colour (#RRGGBB, #RGB or a CSS name)", label.color if label else "", "#428BCA"),
              Field("description", "Description", (label.description or "") if label else "")]

    def validate(values: Values) -> dict[str, str]:
        errors = required(values, "name", "color")
        if "color" not in errors and not is_colour(str(values["color"])):
            errors["color"] = COLOUR_ERROR
        return errors

    return FormScreen("Edit label" if label else "New label", fields, validate)
