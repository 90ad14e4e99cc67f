"""No form can forget what to do when a write's answer is lost (issue 13 item 8, "make the class
impossible"). Three rules, checked over every module of `labdeck.tui`:

1. every modal dialog class is a `WriteForm` (it sends its write itself, stays open, re-reads after a lost
   answer) or says in `SENDS_NO_WRITE` why it sends nothing itself (a yes/no question, a menu, a file
   path, options of a job);
2. a form that writes is opened with `open_write_form`, whose `verify` is a required keyword: a re-read,
   or `CannotVerify("why")`; nobody sets `write_with`/`verify_with` by hand;
3. a form class or form factory is never pushed with a bare `push_screen` (its opener would write after
   it closed, losing the typed text), except the forms listed below, which send nothing to the server.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import pkgutil
from pathlib import Path

import pytest
from textual.screen import ModalScreen

import labdeck.tui
from labdeck.tui.writes import WriteForm, open_write_form

SRC = Path(labdeck.tui.__file__).parent
# Forms pushed plainly, in these functions only, because they send nothing to the server (with why).
NO_WRITE_FORMS = {
    ("ask_folder", "folder_form"): "asks for a local folder; the download is a job",
    ("action_import_group", "import_form"): "the import's options; the import runs as a job",
    ("bulk_menu", "PromptScreen"): "text for a confirmed bulk job (per-issue results in the job)",
}


def _modules() -> list[str]:
    return [info.name for info in pkgutil.walk_packages([str(SRC)], "labdeck.tui.")]


def _dialog_classes() -> list[type]:
    for name in _modules():
        importlib.import_module(name)
    found: list[type] = []
    pending = [ModalScreen]
    while pending:
        cls = pending.pop()
        for sub in cls.__subclasses__():
            pending.append(sub)
            if sub.__module__.startswith("labdeck.tui"):
                found.append(sub)
    return sorted(set(found), key=lambda c: (c.__module__, c.__qualname__))


def test_the_walk_finds_the_forms() -> None:
    names = {cls.__name__ for cls in _dialog_classes()}
    assert {"FormScreen", "SubmitDialog", "AddRuleDialog", "TimeTrackingScreen", "ConfirmScreen",
            "StatusDialog", "PromptScreen", "EditIssueScreen"} <= names


@pytest.mark.parametrize("cls", _dialog_classes(), ids=lambda c: c.__qualname__)
def test_every_dialog_writes_as_a_form_or_says_why_it_does_not(cls: type) -> None:
    if issubclass(cls, WriteForm):
        bases = cls.__subclasses__()  # an abstract base (FormDialog): its forms name the place
        assert cls.ERROR or bases, f"{cls.__qualname__}: no place (ERROR) to say a write was refused or lost"
        return
    reason = getattr(cls, "SENDS_NO_WRITE", "")
    assert isinstance(reason, str) and reason.strip(), (
        f"{cls.__qualname__} is a dialog that is not a WriteForm: make it one (open it with open_write_form "
        "and a verify) or say in SENDS_NO_WRITE why it sends nothing itself")


def test_verify_is_required_to_open_a_write_form() -> None:
    verify = inspect.signature(open_write_form).parameters["verify"]
    assert verify.kind is inspect.Parameter.KEYWORD_ONLY and verify.default is inspect.Parameter.empty


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"))) for path in sorted(SRC.rglob("*.py"))]


def _form_names() -> set[str]:
    """WriteForm subclasses, and functions annotated to return one."""
    classes = {cls.__name__ for cls in _dialog_classes() if issubclass(cls, WriteForm)}
    factories = set()
    for _path, tree in _sources():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and isinstance(node.returns, ast.Name | ast.Constant):
                returned = node.returns.id if isinstance(node.returns, ast.Name) else str(node.returns.value)
                if returned in classes:
                    factories.add(node.name)
    return classes | factories


def _callee(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        return func.attr if isinstance(func, ast.Attribute) else None
    return None


def _pushed(call: ast.Call, function: ast.AST) -> str | None:
    """The class or factory whose result a `push_screen(x, ...)` pushes, when it can be seen."""
    if not call.args:
        return None
    first = call.args[0]
    if isinstance(first, ast.Name):  # a local: its last assignment before the call in the function
        made = [n.value for n in ast.walk(function) if isinstance(n, ast.Assign | ast.AnnAssign)
                and n.value is not None and n.lineno < call.lineno
                and any(isinstance(t, ast.Name) and t.id == first.id
                        for t in (n.targets if isinstance(n, ast.Assign) else [n.target]))]
        return _callee(made[-1]) if made else None
    return _callee(first)


def test_forms_are_opened_with_open_write_form() -> None:
    forms = _form_names()
    plain: list[str] = []
    by_hand: list[str] = []
    for path, tree in _sources():
        where = path.relative_to(SRC)
        pushes: dict[ast.Call, tuple[str | None, set[str]]] = {}  # each call: what, and the functions around
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if isinstance(node, ast.Call) and _callee(node) == "push_screen":
                    pushed, around = pushes.get(node, (None, set()))
                    pushes[node] = (pushed or _pushed(node, function), around | {function.name})
        for node, (pushed, around) in pushes.items():
            if pushed in forms and not any((name, pushed) in NO_WRITE_FORMS for name in around):
                plain.append(f"{where}:{node.lineno} pushes {pushed}")
        if path.name == "writes.py":
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and \
                    node.attr in ("write_with", "verify_with", "after_unknown"):
                by_hand.append(f"{where}:{node.lineno} sets {node.attr}")
    assert not plain, "forms pushed without open_write_form (their writes would lose the typed text):\n" + \
        "\n".join(plain)
    assert not by_hand, "use open_write_form (verify required):\n" + "\n".join(by_hand)


def test_the_scan_sees_a_form_pushed_plainly() -> None:
    """The scan itself can fail: a made-up opener that pushes a form and writes in the callback."""
    source = ("def action_add(self):\n    form = member_form('groups', today)\n"
              "    self.app.push_screen(form, self.apply)\n")
    function = ast.parse(source).body[0]
    call = next(n for n in ast.walk(function) if isinstance(n, ast.Call) and _callee(n) == "push_screen")
    assert _pushed(call, function) == "member_form" and "member_form" in _form_names()


@pytest.mark.parametrize("cls", [c for c in _dialog_classes() if issubclass(c, WriteForm)],
                         ids=lambda c: c.__qualname__)
def test_every_form_that_writes_is_a_form_dialog(cls: type) -> None:
    """One form base: a dialog that sends a write checks its input through `FormDialog.value()`."""
    from labdeck.tui.kit.forms import FormDialog

    assert issubclass(cls, FormDialog), f"{cls.__qualname__}: a hand-rolled writer; derive from FormDialog"
