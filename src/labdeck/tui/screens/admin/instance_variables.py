"""`:variables` (administrators): the instance's CI/CD variables (`/admin/ci/variables`): the kit's variables
pane (`kit/variables_pane.py`) over the instance (`kit/owner.INSTANCE`): `a` adds and `e` edits through the
variables form (key rules, values of at most 10,000 characters, masking rules), `x` deletes after the key is
typed, `m` reveals a masked value, `y` copies a value (the notification never shows it). A refusal by the
server (403 for a non-administrator, the instance variable limit, ...) is shown with its status and message,
never a crash.
"""

from __future__ import annotations

from textual.app import ComposeResult

from labdeck.tui.areas import AreaRequest
from labdeck.tui.kit.owner import INSTANCE
from labdeck.tui.kit.tabs import TabSpec
from labdeck.tui.kit.variables_pane import VariablesPane
from labdeck.tui.screens.base import LabdeckScreen
from labdeck.tui.widgets.resource_table import ResourceTable


class InstanceVariablesScreen(LabdeckScreen):
    AREA = "variables"
    TITLE = "Instance CI variables"

    def compose_body(self) -> ComposeResult:
        yield VariablesPane(INSTANCE, id="instance-vars", view_id="instance-vars-view",
                            status_id="instance-vars-status",
                            status="Instance CI/CD variables (administrators)")

    @property
    def pane(self) -> VariablesPane:
        return self.query_one(VariablesPane)

    @property
    def table(self) -> ResourceTable:
        return self.pane.view.table

    @property
    def spec(self) -> TabSpec:
        return self.pane.spec

    def on_mount(self) -> None:
        self.table.focus()

    def refresh_data(self) -> None:
        self.pane.load(refresh=True)


def open_instance_variables(request: AreaRequest) -> InstanceVariablesScreen:
    """The area factory (`:variables`)."""
    return InstanceVariablesScreen()
