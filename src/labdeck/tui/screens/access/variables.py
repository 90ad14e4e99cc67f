"""`:access`'s Variables tab: every CI/CD variable key at every level of the scope (the instance, its groups,
its projects) with its environment scope and flags (protected, masked, hidden, raw), whether a job gets it
(`wins`: project over the nearest group over the instance, per environment scope,
`domain/variable_precedence.py`) and the findings (`domain/variable_findings.py`: a secret-looking key not
masked or not protected, one key with different flags at several levels, two patterns that meet), read by
`api/access_variables.VariablesReview`. No value is ever read: a row holds none, so none can be shown,
exported or written. Filters: `findings`, `losing`, `group` (a level), `key:DEPLOY_*`, `path:P`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text

from labdeck.api.access_scope import Unreadable
from labdeck.domain.access_filters import parse_variable_filter
from labdeck.domain.variable_findings import FINDING_WORDS, VariableFilter, VariableRow, reviewed
from labdeck.domain.variable_precedence import Definition
from labdeck.tui.kit.owner import Owner
from labdeck.tui.kit.tabs import TabSpec, detail_text
from labdeck.tui.screens.access.review import Heard, ReviewPane
from labdeck.tui.widgets.table_columns import Column, plain_column

if TYPE_CHECKING:
    from labdeck.api.services import Services


def flags_text(d: Definition) -> str:
    """`protected masked hidden raw`, the flags set."""
    return " ".join(word for word, on in (("protected", d.protected), ("masked", d.masked),
                                          ("hidden", d.hidden), ("raw", d.raw)) if on)


def _findings(row: VariableRow) -> Text:
    return Text("; ".join(FINDING_WORDS[f] for f in row.findings), style="yellow")


def _detail(row: VariableRow) -> Text:
    d = row.definition
    return detail_text(d.key, [
        ("defined at", d.where), ("level", d.level), ("environment", d.environment_scope),
        ("type", d.variable_type), ("flags", flags_text(d) or "none"),
        ("wins", "yes: some job gets it" if row.wins else "no: overridden wherever it applies"),
        ("findings", "; ".join(FINDING_WORDS[f] for f in row.findings) or "none")])


VARIABLE_COLUMNS = [
    plain_column("key", "Key", lambda r: r.definition.key, min_width=12, priority=10,
                 data=lambda r: r.definition.key),
    plain_column("where", "Where", lambda r: r.definition.where, min_width=10, priority=8,
                 data=lambda r: r.definition.where),
    plain_column("scope", "Env", lambda r: r.definition.environment_scope, min_width=3, max_width=16,
                 priority=3, data=lambda r: r.definition.environment_scope),
    plain_column("flags", "Flags", lambda r: flags_text(r.definition), min_width=6, priority=2,
                 data=lambda r: flags_text(r.definition).split(),
                 extra_data=tuple((flag, (lambda r, flag=flag: getattr(r.definition, flag)))
                                  for flag in ("protected", "masked", "hidden", "raw"))),
    Column("wins", "Wins", width=4, text=lambda r: Text("yes" if r.wins else "no",
                                                       style="green" if r.wins else "dim"),
           data=lambda r: r.wins, priority=4),
    Column("findings", "Findings", min_width=8, text=_findings, data=lambda r: list(r.findings),
           essential=True, priority=6),
]
VARIABLE_SPEC = TabSpec(VARIABLE_COLUMNS, lambda r: r.definition, _detail, "No variables in this scope")


class AccessVariablesPane(ReviewPane):
    FILTER_HINT = "filter: findings  losing  group  key:DEPLOY_*  path:group/sub"

    def __init__(self, owner: Owner, **kwargs: Any) -> None:
        super().__init__(owner, VARIABLE_SPEC, id="access-variables", **kwargs)

    async def review(self, services: Services, scope: str | None, refresh: bool,
                     heard: Heard) -> tuple[list[Any], list[Unreadable]]:
        def as_rows(definitions: list[Any], done: int, total: int) -> None:
            heard(reviewed(definitions, []), done, total)  # whether each wins is known once all are read

        read = await services.access_variables.review(scope, refresh=refresh, on_rows=as_rows)
        return list(read.rows), read.unreadable

    def parse_filter(self, text: str) -> VariableFilter:
        return parse_variable_filter(text)

    def counts(self, rows: list[Any]) -> str:
        found = sum(1 for r in rows if r.findings)
        keys = len({r.definition.key for r in rows})
        return f"{keys} keys, {found} with findings" if self.complete else ""
