"""The dialogs of the issues view: the bulk action menu, a one-line prompt (labels, usernames, milestone), the
comment editor and the edit dialog (title, labels, description). Comments and descriptions are typed in a
`TextEditor` (multi-line; `ctrl+s` sends, `ctrl+o` opens `$VISUAL`/`$EDITOR`). Server text appears only as
`Content`/`Text`. Label, username and milestone fields complete names from the instance
(`widgets/completion.py`): the issue's project, or the marked issues' project (else the view's group).
"""

from __future__ import annotations

import re
from typing import Final

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from labdeck.api.completion import Scope
from labdeck.api.issue_scopes import GroupId, names_scope
from labdeck.api.issues import BulkKind
from labdeck.api.models.issues import Issue
from labdeck.domain.completion import Kind
from labdeck.domain.label_edits import label_edit
from labdeck.domain.replacements import replaced_text
from labdeck.tui.kit.forms import FormDialog, Problem
from labdeck.tui.screens.confirm import Cancellable
from labdeck.tui.widgets.completion import list_input, single_input
from labdeck.tui.widgets.text_editor import TextEditor

# id -> label, in menu order
BULK_CHOICES: Final[dict[BulkKind, str]] = {
    "close": "Close", "reopen": "Reopen", "add_labels": "Add labels…", "remove_labels": "Remove labels…",
    "assign": "Assign to…", "unassign": "Unassign everyone", "set_milestone": "Set milestone…",
    "todo": "Add a to-do",
}
# The confirmation's question per bulk action: {what} is the typed text, {issues} "3 marked issues"
_QUESTIONS: Final[dict[BulkKind, str]] = {
    "close": "Close {issues}?", "reopen": "Reopen {issues}?", "add_labels": "Add {what} to {issues}?",
    "remove_labels": "Remove {what} from {issues}?", "assign": "Assign {issues} to {what}?",
    "unassign": "Unassign everyone from {issues}?", "set_milestone": "Set the milestone {what} on {issues}?",
    "todo": "Add a to-do for {issues}?",
}


# the names a bulk action's prompt takes
BULK_NAMES: Final[dict[BulkKind, Kind]] = {"add_labels": "label", "remove_labels": "label", "assign": "user",
                                           "set_milestone": "milestone"}


def bulk_completion(kind: BulkKind, issues: list[Issue], group: GroupId | None) -> tuple[Kind, Scope] | None:
    """What a bulk prompt completes: its kind of name, in the marked issues' project when they share one,
    else in the view's group (None: the prompt takes no names)."""
    names = BULK_NAMES.get(kind)
    if names is None:
        return None
    projects = {issue.project_id for issue in issues}
    scope: Scope = ("project", projects.pop()) if len(projects) == 1 else names_scope(group)
    return names, scope


def project_of(reference: str) -> Scope:
    """The project of a full issue reference (`group/project#12`), None for a bare `#12`."""
    path, _, _ = reference.rpartition("#")
    return ("project", path) if "/" in path else None


def bulk_replaces(kind: BulkKind, issues: list[Issue], names: tuple[str, ...], text: str) -> str:
    """What a bulk change writes over on `issues`, in `replaced_text`'s words ("replaces bob on 3
    issues"), or "". `assignee_ids` and `milestone_id` replace the issue's whole value (GitLab's
    `doc/api/issues.md`, "Edit an issue": the users to assign the issue to; 0 or empty unassigns all);
    labels are added or removed one by one, never set wholesale, so they replace nothing."""
    if kind in ("assign", "unassign"):
        return replaced_text([issue.assignee_usernames for issue in issues], names, noun="issue")
    if kind == "set_milestone":
        return replaced_text([[issue.milestone.title] if issue.milestone else [] for issue in issues],
                             [text] if text else [], noun="issue")
    return ""


def bulk_question(kind: BulkKind, text: str, count: int) -> str:
    """`Close 3 marked issues?`, `Add the labels bug, ux to 1 marked issue?`: literal text (`text` is the
    operator's own, shown as typed)."""
    what = text
    if kind in ("add_labels", "remove_labels"):
        what = f"the label{'s' if ',' in text else ''} {text}"
    issues = f"{count:,} marked issue{'' if count == 1 else 's'}"
    if kind == "set_milestone" and not text:
        return f"Remove the milestone from {issues}?"
    return _QUESTIONS[kind].format(what=what, issues=issues)


class BulkMenu(Cancellable["BulkKind | None"], ModalScreen["BulkKind | None"]):
    """What to do with the marked issues (escape: "Bulk action on 3 marked issues: cancelled")."""

    SENDS_NO_WRITE = "a menu of bulk actions: they run as jobs, whose results say what happened"

    CSS_PATH = "issues.tcss"
    AUTO_FOCUS = "#issues-bulk-options"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="issues_bulk.cancel")]

    def __init__(self, count: int) -> None:
        super().__init__()
        self.count = count

    def compose(self) -> ComposeResult:
        with Vertical(classes="issues-dialog"):
            yield Static(Text(f"Bulk action on {self.count} marked issues", style="bold"))
            yield OptionList(*(Option(label, id=kind) for kind, label in BULK_CHOICES.items()),
                             id="issues-bulk-options")
            yield Static("enter: choose · escape: cancel", classes="issues-dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(str(event.option.id))  # type: ignore[arg-type]


_URL = re.compile(r"https?://[^\s<>()\[\]\"'`]+")


def links_in(text: str) -> list[str]:
    """The http(s) URLs of a Markdown text (bare or in `[text](url)`), in order, without duplicates."""
    return list(dict.fromkeys(url.rstrip(".,;:!?") for url in _URL.findall(text or "")))


class LinkMenu(ModalScreen[str | None]):
    """The links of an issue's description and notes: one is opened only when chosen (and, off the
    instance's host, only after a confirmation: see `tui.links.open_link`)."""

    SENDS_NO_WRITE = "a menu of links to open; sends nothing"

    CSS_PATH = "issues.tcss"
    AUTO_FOCUS = "#issues-link-options"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="issues_links.cancel")]

    def __init__(self, reference: str, urls: list[str]) -> None:
        super().__init__()
        self.reference = reference
        self.urls = urls

    def compose(self) -> ComposeResult:
        with Vertical(classes="issues-dialog"):
            yield Static(Content.from_markup("Links in [b]$ref[/b]", ref=self.reference))
            yield OptionList(*(Option(Text(url), id=str(n)) for n, url in enumerate(self.urls)),
                             id="issues-link-options")
            yield Static("enter: open · escape: cancel", classes="issues-dialog-hint")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.urls[int(str(event.option.id))])

    def action_cancel(self) -> None:
        self.dismiss(None)


class PromptScreen(FormDialog[str]):
    """One line of input; `allow_empty=False` keeps the dialog open until something is typed. With
    `write_with` set (`WriteForm`), enter sends it and the dialog stays open, text kept, until it is done."""

    CSS_PATH = "issues.tcss"
    ERROR = "issues-prompt-error"
    AUTO_FOCUS = "#issues-prompt-input"
    SAYS_CANCELLED = True  # a bulk action's prompt: cancelling it cancels the change
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="issues_prompt.cancel")]

    def __init__(self, title: str | Content, placeholder: str = "", value: str = "", *,
                 allow_empty: bool = False, complete: tuple[Kind, Scope] | None = None) -> None:
        super().__init__()
        self.prompt_title = title if isinstance(title, Content) else Content(title)
        self.placeholder = placeholder
        self.initial = value
        self.allow_empty = allow_empty
        self.complete = complete  # the names the prompt completes (comma-separated, but one milestone)

    def compose(self) -> ComposeResult:
        with Vertical(classes="issues-dialog"):
            yield Static(self.prompt_title, classes="issues-dialog-title")
            yield self._field()
            yield Static("", markup=False, id=self.ERROR)
            yield Static("enter: OK · escape: cancel", classes="issues-dialog-hint")

    def _field(self) -> Input:
        if self.complete is None:
            return Input(self.initial, placeholder=self.placeholder, id="issues-prompt-input")
        kind, scope = self.complete
        make = single_input if kind == "milestone" else list_input
        return make(kind, self.initial, scope=lambda: scope, placeholder=self.placeholder,
                    id="issues-prompt-input")

    def value(self) -> str | Problem:
        text = self.query_one("#issues-prompt-input", Input).value.strip()
        return text if text or self.allow_empty else Problem("")  # empty: nothing to say, nothing sent

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()


# The keys of a form with a comment or description, on its border (the footer shows them too).
TEXT_KEYS = "ctrl+s send · ctrl+o editor · enter new line · esc cancel"
EDIT_KEYS = "ctrl+s save · esc cancel · in the description: ctrl+o your editor"


class CommentScreen(FormDialog[str]):
    """A comment (Markdown) in a multi-line `TextEditor`: enter starts a new line, `ctrl+s` (the Comment
    button) sends it, `ctrl+o` edits it in `$VISUAL`/`$EDITOR`, escape cancels. Opened with
    `open_write_form`, it sends the comment itself and stays open, text kept, until it is done."""

    CSS_PATH = "issues.tcss"
    SUBMIT = "send"
    ERROR = "issues-comment-error"
    AUTO_FOCUS = "#issues-comment-text"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="issues_comment.cancel")]

    def __init__(self, title: Content, value: str = "") -> None:
        super().__init__()
        self.prompt_title = title
        self.initial = value

    def compose(self) -> ComposeResult:
        with Vertical(classes="issues-dialog") as dialog:
            dialog.border_subtitle = TEXT_KEYS
            yield Static(self.prompt_title, classes="issues-dialog-title")
            yield TextEditor(self.initial, file_name="comment.md", placeholder="Your comment (Markdown)",
                             id="issues-comment-text")
            yield Static("", markup=False, id=self.ERROR)
            with Horizontal(classes="issues-dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Comment", id="send", variant="primary")

    def value(self) -> str | Problem:
        """The comment as typed, every line, without blank lines around it; nothing typed: nothing sent."""
        text = self.query_one("#issues-comment-text", TextEditor).text.rstrip().lstrip("\n")
        return text if text else Problem("Write the comment first (enter starts a new line, ctrl+s sends)")


class EditIssueScreen(FormDialog[dict[str, str]]):
    """Edit the title, the labels (comma-separated) and the description (a multi-line `TextEditor`, `ctrl+o`
    for `$VISUAL`/`$EDITOR`); dismisses with only the changed fields, or, with `write_with` set
    (`WriteForm`), saves them itself and stays open, text kept, until they are saved. Enter in the title or
    the labels saves; in the description it starts a new line (`ctrl+s` saves from anywhere)."""

    CSS_PATH = "issues.tcss"
    SUBMIT = "save"
    ERROR = "issues-edit-error"
    AUTO_FOCUS = "#issues-edit-title"
    BINDINGS = [Binding("escape", "cancel", "Cancel", id="issues_edit.cancel")]

    def __init__(self, reference: str, title: str, labels: list[str], description: str = "") -> None:
        super().__init__()
        self.reference = reference
        self.old_title = title
        self.old_description = description
        self.labels_before = list(labels)
        self.old_labels = ", ".join(labels)
        self.removal_shown: tuple[str, ...] = ()  # the removals named once: a second save confirms them

    def compose(self) -> ComposeResult:
        with Vertical(classes="issues-dialog") as dialog:
            dialog.border_subtitle = EDIT_KEYS
            yield Static(Content.from_markup("Edit [b]$ref[/b]", ref=self.reference))
            yield Static("Title")
            yield Input(self.old_title, id="issues-edit-title")
            yield Static("Labels (comma-separated)")
            # no select-on-focus: a Tab into the field and a quick key must not replace every label
            scope = project_of(self.reference)
            yield list_input("label", self.old_labels, scope=lambda: scope, id="issues-edit-labels",
                             select_on_focus=False)
            yield Static("Description (Markdown)")
            yield TextEditor(self.old_description, file_name="description.md", id="issues-edit-description")
            yield Static("", id="issues-edit-error", markup=False)
            with Horizontal(classes="issues-dialog-buttons"):
                yield Button("Cancel", id="cancel")
                yield Button("Save", id="save", variant="primary")

    def value(self) -> dict[str, str] | Problem:
        """Only the changed fields: the title, the description, and the labels added and removed (never the
        whole list)."""
        title = self.query_one("#issues-edit-title", Input).value.strip()
        labels = self.query_one("#issues-edit-labels", Input).value
        description = self.query_one("#issues-edit-description", TextEditor).text
        if not title:
            return Problem("The title cannot be empty")
        out: dict[str, str] = {}
        if title != self.old_title:
            out["title"] = title
        if description.rstrip() != self.old_description.rstrip():
            out["description"] = description.rstrip()
        edit = label_edit(self.labels_before, labels)
        if edit.removed and edit.removed != self.removal_shown:  # say what goes before it goes
            self.removal_shown = edit.removed
            return Problem(f"This removes the label(s) {', '.join(edit.removed)}: save again to confirm")
        out.update(edit.fields())  # add_labels / remove_labels: never the whole list
        return out

    def show_problem(self, problem: Problem) -> None:
        style = "yellow" if problem.message.startswith("This removes") else "red"
        self.query_one("#issues-edit-error", Static).update(Text(problem.message, style=style))

    def nothing_to_send(self, result: dict[str, str]) -> bool:
        return not result

    def unsaved_changes(self) -> bool:
        """The description typed (`DraftGuard`), and the title and labels too."""
        return super().unsaved_changes() or (
            self.query_one("#issues-edit-title", Input).value != self.old_title
            or self.query_one("#issues-edit-labels", Input).value != self.old_labels)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.submit()
