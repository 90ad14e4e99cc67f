"""Request parameters the way GitLab's API reads them: query string, form, multipart and JSON bodies merged,
with Rack's bracket forms (`iids[]=1`, `not[labels]=x`, `custom_attributes[key]=value`) decoded.

`Params` also validates like Grape: `require()` raises the `{"error": "title is missing"}` response, and the
typed getters raise `{"error": "per_page is invalid"}` for values of the wrong type.
"""

from __future__ import annotations

import builtins
import re
from collections.abc import Iterable
from typing import Any

from labdeck.domain.digits import integer_value as integer
from labdeck.sandbox.errors import SandboxError

_BRACKETS = re.compile(r"\[([^\]]*)\]")
_TRUE = {"true", "1", "t", "yes", "y", "on"}
_FALSE = {"false", "0", "f", "no", "n", "off", ""}


def _assign(target: dict[str, Any], key: str, value: Any) -> None:
    """Store one `key=value` pair, decoding `a[]`, `a[b]`, `a[b][]` and `a[b][c]`."""
    head, _, rest = key.partition("[")
    if not rest or not head:
        target[key] = value
        return
    parts = _BRACKETS.findall("[" + rest)
    node: Any = target
    name = head
    for part in parts:
        if part == "":
            existing = node.get(name)
            if not isinstance(existing, list):
                existing = [] if existing is None else [existing]
                node[name] = existing
            existing.append(value)
            return
        child = node.get(name)
        if not isinstance(child, dict):
            child = {}
            node[name] = child
        node, name = child, part
    node[name] = value


def decode_pairs(pairs: Iterable[tuple[str, Any]]) -> dict[str, Any]:
    """Decode flat form/query pairs into nested params (later plain keys win, as in Rack)."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        _assign(out, key, value)
    return out


class Params:
    """Merged request parameters (body over query over nothing; path parameters are separate). The methods
    are named after the types they read, so signatures below them spell the types `builtins.str`, ..."""

    def __init__(self, data: dict[str, Any] | None = None) -> None:
        self.data: dict[str, Any] = dict(data or {})

    def __contains__(self, name: str) -> bool:
        return name in self.data and self.data[name] is not None

    def get(self, name: str, default: Any = None) -> Any:
        value = self.data.get(name)
        return default if value is None else value

    def str(self, name: str, default: str | None = None) -> str | None:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, (dict, list)):
            raise SandboxError.invalid(name)
        return str(value)

    def int(self, name: builtins.str, default: builtins.int | None = None) -> builtins.int | None:
        value = self.data.get(name)
        if value is None or value == "":
            return default
        number = integer(value)
        if number is None:
            raise SandboxError.invalid(name)
        return number

    def bool(self, name: builtins.str, default: builtins.bool | None = None) -> builtins.bool | None:
        value = self.data.get(name)
        if value is None:
            return default
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
        raise SandboxError.invalid(name)

    def list(self, name: builtins.str) -> builtins.list[Any]:
        """An array parameter: `name[]=1&name[]=2`, a JSON array, or a comma-separated string."""
        value = self.data.get(name)
        if value is None:
            return []
        if isinstance(value, list):
            return value
        if isinstance(value, dict):
            raise SandboxError.invalid(name)
        return [v for v in str(value).split(",") if v != ""]

    def int_list(self, name: builtins.str) -> builtins.list[builtins.int]:
        numbers = [integer(v) for v in self.list(name)]
        if any(n is None for n in numbers):
            raise SandboxError.invalid(name)
        return [n for n in numbers if n is not None]

    def dict(self, name: builtins.str) -> dict[builtins.str, Any]:
        """A hash parameter: `name[key]=value` or a JSON object."""
        value = self.data.get(name)
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise SandboxError.invalid(name)
        return value

    def choice(self, name: builtins.str, allowed: Iterable[builtins.str],
               default: builtins.str | None = None) -> builtins.str | None:
        """A string limited to `allowed` values (Grape's "does not have a valid value")."""
        value = self.str(name)
        if value is None or value == "":
            return default
        if value not in set(allowed):
            raise SandboxError.bad_value(name)
        return value

    def require(self, *names: builtins.str) -> None:
        """Raise 400 `{"error": "a is missing, b is missing"}` for each absent or empty parameter."""
        missing = [n for n in names if self.data.get(n) in (None, "")]
        if missing:
            raise SandboxError.missing(*missing)
