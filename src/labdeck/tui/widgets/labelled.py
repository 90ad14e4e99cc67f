"""`LabelledField`: a one-line field with its label before it, as the forms have, for the search and scope
bars of full screens (issues filter and group, users search, project tags search, registry and
deployments scope). The label stays when the field is typed in; the placeholder is only an example.
At narrow widths the label keeps its few columns and the field gives way."""

from __future__ import annotations

from textual.containers import Horizontal
from textual.widgets import Input, Label


class LabelledField(Horizontal):
    """`Label` + `Input` on one line. Give the container an id to size it; the input keeps its own id."""

    DEFAULT_CSS = """
    LabelledField { height: auto; width: 1fr; }
    LabelledField > .field-label {
        width: auto; height: 3; content-align: left middle; padding: 0 0 0 1; color: $text-muted;
    }
    LabelledField > Input { width: 1fr; }
    """

    def __init__(self, label: str, field: Input, *, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(Label(label, classes="field-label"), field, id=id, classes=classes)
        self.field = field
