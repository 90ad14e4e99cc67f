"""Paths appear once, in the endpoint catalogue (`labdeck.domain.catalogue`): no module of `api/` (nor of
`cli/`, `config/`, `tui/`) writes an API path of its own (a source scan, like test_layers.py), the sandbox
serves what labdeck calls, and the catalogue names every route of the sandbox that labdeck calls."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from starlette.routing import Route

from labdeck.domain.catalogue import ENDPOINTS
from labdeck.domain.endpoints import shape
from labdeck.sandbox.areas import load_areas

SRC = Path(__file__).resolve().parents[1] / "src" / "labdeck"
CALLERS = ("api", "cli", "config", "tui")  # every layer that talks to GitLab (the sandbox serves it)

# Routes the sandbox serves for other clients (python-gitlab, the contract's conformance), never for labdeck.
NOT_CALLED_BY_LABDECK = {
    ("GET", "/application/plan_limits"), ("PUT", "/application/plan_limits"),
    ("GET", "/features"), ("POST", "/features/{}"),
    ("POST", "/groups"), ("PUT", "/groups/{}/labels"), ("DELETE", "/groups/{}/labels"),
    ("DELETE", "/projects/{}/fork/{}"),
}
# Endpoints labdeck calls that the sandbox does not serve (it answers GitLab's catch-all 404).
NOT_SERVED_BY_THE_SANDBOX: set[tuple[str, str]] = set()


def _served() -> set[tuple[str, str]]:
    return {(method, shape(route.path)) for area in load_areas() for route in area.routes
            if isinstance(route, Route) for method in (route.methods or ()) if method != "HEAD"}


def test_every_route_labdeck_calls_is_in_the_catalogue_and_served() -> None:
    declared = {(e.method, e.shape) for e in ENDPOINTS}
    served = _served()
    assert sorted(served - declared - NOT_CALLED_BY_LABDECK) == []
    assert sorted(declared - served - NOT_SERVED_BY_THE_SANDBOX) == []
    assert NOT_CALLED_BY_LABDECK <= served and not NOT_CALLED_BY_LABDECK & declared  # the lists stay true
    assert NOT_SERVED_BY_THE_SANDBOX <= declared and not NOT_SERVED_BY_THE_SANDBOX & served


def _words() -> set[str]:
    """The fixed segments of the catalogue's templates (`projects`, `members`, `tags`, ...)."""
    return {part for e in ENDPOINTS for part in e.template.split("/") if part and "{" not in part}


_PATHISH = re.compile(r"^/([a-z_]+)")


def _docstrings(tree: ast.Module) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def path_literals(source: str, words: set[str]) -> list[str]:
    """String constants of `source` (whole strings and the fixed parts of f-strings) that begin like an API
    path: a `/` and then a segment the catalogue's templates have."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            match = _PATHISH.match(node.value)
            if match and match.group(1) in words:
                found.append(f"line {node.lineno}: {node.value!r}")
    return found


def test_no_module_of_the_client_side_writes_an_api_path() -> None:
    words = _words()
    modules = [path for layer in CALLERS for path in sorted((SRC / layer).rglob("*.py"))]
    offenders = {str(path.relative_to(SRC)): hits for path in modules
                 if (hits := path_literals(path.read_text(encoding="utf-8"), words))}
    assert offenders == {}


def joined_paths(source: str) -> list[str]:
    """f-strings of `source` that put a `/` after a value (`f"{base}/{int(iid)}"`): a path built by hand."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.JoinedStr):
            for before, part in zip(node.values, node.values[1:], strict=False):
                if isinstance(before, ast.FormattedValue) and isinstance(part, ast.Constant) \
                        and str(part.value).startswith("/"):
                    found.append(f"line {node.lineno}: {ast.unparse(node)}")
                    break
    return found


def test_no_service_joins_a_path_by_hand() -> None:
    """`api/settings.py` builds the API's root URL (`{base_url}/api/v4`); nothing else in `api/` joins."""
    offenders = {path.name: hits for path in sorted((SRC / "api").rglob("*.py")) if path.name != "settings.py"
                 if (hits := joined_paths(path.read_text(encoding="utf-8")))}
    assert offenders == {}


def test_the_scan_finds_a_hand_written_path() -> None:
    words = _words()
    assert path_literals('x = f"/projects/{segment(p)}/protected_environments"', words)
    assert path_literals('x = base + "/tags"', words)
    assert path_literals('USERS = "/users"', words)
    assert not path_literals('x = ep.USERS.path()\nnote = "/promote"\ndef f():\n    """GET /users"""', words)
    assert joined_paths('x = f"{self._base(group)}/{int(badge_id)}"')
    assert not joined_paths('x = f"{method} {where}: {done}"')


def test_changed_families_are_the_path_and_the_catalogues_families() -> None:
    from labdeck.domain.catalogue import changed_families

    assert changed_families("POST", "/users/5/unban") == ("/users/5/unban", "/users")
    assert changed_families("PUT", "/projects/1/issues/11") == ("/projects/1/issues/11",
                                                                 "/projects/1/issues/11", "/issues")
    assert changed_families("POST", "/not/in/the/catalogue") == ("/not/in/the/catalogue",)
