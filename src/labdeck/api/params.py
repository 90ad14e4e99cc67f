"""Query parameter encoding in GitLab's bracket form: lists as `key[]=v`, dicts as `key[sub]=v`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, datetime
from enum import Enum
from typing import Any

Pairs = list[tuple[str, str]]


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Enum):
        return _scalar(value.value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return str(value)


def _encode(key: str, value: Any, out: Pairs) -> None:
    if value is None:
        return
    if isinstance(value, Mapping):
        for sub, inner in value.items():
            _encode(f"{key}[{sub}]", inner, out)
    elif isinstance(value, list | tuple | set | frozenset):
        items = sorted(value, key=str) if isinstance(value, set | frozenset) else value
        for inner in items:
            if inner is not None:
                _encode(f"{key}[]", inner, out)
    else:
        out.append((key, _scalar(value)))


def encode_params(params: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> Pairs:
    """Flatten `params` into query pairs; `None` values are dropped, booleans become `true`/`false`."""
    out: Pairs = []
    if not params:
        return out
    items = params.items() if isinstance(params, Mapping) else params
    for key, value in items:
        _encode(str(key), value, out)
    return out


def normalise_params(params: Mapping[str, Any] | None) -> tuple[tuple[str, str], ...]:
    """A canonical, hashable form of `params` (encoded and sorted) for cache keys."""
    return tuple(sorted(encode_params(params)))
