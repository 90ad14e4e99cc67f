"""The `:` prompt: type a view name (`groups`, `issues`, `log`, ...) with completion; enter opens it."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, Static

from labdeck.tui.areas import alias_note, complete, find_area
from labdeck.tui.capabilities import area_refusal
from labdeck.tui.context import context_of
from labdeck.tui.screens.form_keys import FormKeys
from labdeck.tui.type_ahead import PromptKeys


class JumpScreen(PromptKeys, FormKeys, ModalScreen[str | None]):
    """Returns the chosen area name, or None when cancelled. The app reads its keys in order as they are
    typed (`PromptKeys`): `:issues` enter `/bug` in one burst opens Issues and filters it."""

    SENDS_NO_WRITE = "the jump prompt; sends nothing"
    ENTER_LABEL = "Go"  # what the footer says enter does (`enter_key`; not "Open": a list's enter)

    CSS_PATH = "jump.tcss"
    BINDINGS = [
        Binding("escape", "cancel", "Cancel", id="jump.cancel"),
        Binding("tab", "complete", "Complete", id="jump.complete"),
    ]

    def footer_order(self) -> tuple[str, ...]:
        """The footer under the prompt (`widgets.footer`): its own keys, not the screen's."""
        return ("complete", "cancel")

    def compose(self) -> ComposeResult:
        with Vertical(id="jump-box"):
            with Vertical(id="jump-line"):
                yield Label(":", id="jump-colon")
                yield Input(placeholder="view name", id="jump-input",
                            suggester=SuggestFromList(complete("", self._admin(), self._allowed()),
                                                      case_sensitive=False))
            yield Static(self._choices(""), id="jump-choices")

    def on_mount(self) -> None:
        self.adopt(self.query_one("#jump-input", Input))

    def _admin(self) -> bool:
        return context_of(self).is_admin

    def _allowed(self) -> Any:
        return context_of(self).area_allowed

    def _choices(self, text: str) -> str:
        """The views `text` can open, and the aliases it begins (`:jobs is an alias of :tasks`)."""
        names = complete(text, self._admin(), self._allowed())
        shown = "  ".join(f":{name}" for name in names) if names else "no view matches"
        note = alias_note(text) if names else ""
        return f"{shown}  ·  {note}" if note else shown

    def on_input_changed(self, event: Input.Changed) -> None:
        self.query_one("#jump-choices", Static).update(self._choices(event.value))

    def action_complete(self) -> None:
        names = complete(self.text, self._admin(), self._allowed())
        if names:
            self.set_text(names[0])

    def complete_text(self) -> None:
        self.action_complete()

    def cancel_prompt(self) -> None:
        self.action_cancel()

    def submit_text(self, text: str) -> None:
        self.answer_text(text)

    def answer(self, name: str) -> None:
        """Close with `name`; the keys typed after the enter wait for the area it opens (`type_ahead`)."""
        self.answered = True
        self.dismiss(name)

    def answer_text(self, value: str) -> None:
        """Open the view `value` names (or the first it begins), or say why not."""
        if self.answered:
            return
        names = complete(value, self._admin(), self._allowed())
        exact = value.strip().lstrip(":").lower()
        if exact in names or (exact and find_area(exact) is not None):
            self.answer(exact)  # an area this instance or token cannot reach: opening it says why
        elif len(names) >= 1 and exact:
            self.answer(names[0])
        else:
            area = find_area(exact) if exact else None
            refusal = area_refusal(context_of(self), area) if area is not None else None
            if refusal is not None:
                self.notify(refusal, severity="warning", markup=False)
            else:
                self.notify(f"No view called :{exact}", severity="warning", markup=False)

    def action_cancel(self) -> None:
        self.answered = True
        self.dismiss(None)
