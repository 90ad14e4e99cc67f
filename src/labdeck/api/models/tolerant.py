"""Tolerant reading: one item that does not fit its model never fails a whole list (issue 15, item 4).

Lists are validated strictly first, in one call (the fast path, `base.parse_many`). Only when that raises
is each item read here on its own: what can be read is kept, and each field that could not be read
(a value of an unexpected type, an enum value a newer GitLab added, a null where a string was expected)
is left at its default, or at `""` for a required string, and named in the item's `unreadable` (dotted
for nested models: `author.username`). An item of a list is never left out: a required number that cannot
be read (an `id` that is not a number) gets a placeholder, a negative number no GitLab object has and no
other item shares (so rows keep distinct keys), and an element that is not an object at all (a string, a
null) becomes a placeholder item whose unreadable names start with `NOT_AN_OBJECT`. Such an item's
identity is unreadable (`identity_unreadable`): it is shown, but nothing can act on it, and the client
refuses any request whose path carries a placeholder (`placeholder_in_path`) with `IDENTITY_UNREADABLE`.
A single object (`parse_one`) is still refused when its identity cannot be read. Every such decision is
reported once to the decode warnings sink (the request log's `note`, shown in `:log`) and to the
`labdeck.api.decode` logger, with the model, the item's id and pydantic's reason, never the value itself.

The sink is the request log of the client that last made a request in this task (a context variable set
by `ApiClient.request`), else the one of the client created last.
"""

from __future__ import annotations

import itertools
import logging
import re
import types
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, TypeVar, Union, get_args, get_origin

from pydantic import BaseModel, ValidationError

log = logging.getLogger("labdeck.api.decode")

Sink = Callable[[str, str], object]  # (what: "Member #12", detail: "expires_at: date_parsing"), result unused
_current_sink: ContextVar[Sink | None] = ContextVar("labdeck_decode_sink", default=None)
_default_sink: list[Sink] = []  # the sink of the client created last (at most one element)
MAX_PASSES = 4
IDENTITY_UNREADABLE = "this item's id could not be read: cannot act on it"
NOT_AN_OBJECT = "(whole item)"  # first unreadable name of a placeholder for an element that is no object
_placeholders = itertools.count(-1, -1)  # -1, -2, ...: never a GitLab id, never shared by two items
_PLACEHOLDER_SEGMENT = re.compile(r"(?:^|/)(?:-[0-9]+)?(?:/|$)")  # a "-12" segment, or an empty one

T = TypeVar("T", bound=BaseModel)


def use_sink(sink: Sink) -> None:
    """Report this task's decode warnings to `sink` (called by the client on every request)."""
    if _current_sink.get() is not sink:
        _current_sink.set(sink)


def set_default_sink(sink: Sink) -> None:
    """Report decode warnings to `sink` wherever no request of this task chose one."""
    _default_sink[:] = [sink]


def warn(what: str, detail: str) -> None:
    """Report one decode warning (logger and sink; a failing sink never breaks a read)."""
    log.warning("%s: %s", what, detail)
    sink = _current_sink.get() or (_default_sink[0] if _default_sink else None)
    if sink is not None:
        try:
            sink(what, detail)
        except Exception:  # pragma: no cover - a broken sink must not break reading
            log.exception("decode warning sink failed")


def _nested(annotation: Any) -> tuple[str, type[BaseModel]] | None:
    """("one", Model) for `Model | None`, ("list", Model) for `list[Model]`; None otherwise."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return "one", annotation
    origin = get_origin(annotation)
    if origin in (Union, types.UnionType):
        for arg in get_args(annotation):
            found = _nested(arg)
            if found is not None:
                return found
    if origin in (list, tuple) and get_args(annotation):
        inner = get_args(annotation)[0]
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            return "list", inner
    return None


def _accepts_str(annotation: Any) -> bool:
    return annotation is str or str in get_args(annotation)


def _label(model: type[BaseModel], data: Any) -> str:
    ident = data.get("id", data.get("iid", data.get("name"))) if isinstance(data, dict) else None
    return f"{model.__name__} #{ident}" if isinstance(ident, int | str) else model.__name__


def _reasons(error: ValidationError) -> dict[str, str]:
    """The first error of each top-level key: {"expires_at": "date_from_datetime_inexact"}."""
    out: dict[str, str] = {}
    for item in error.errors():
        loc = item.get("loc", ())
        if loc:
            out.setdefault(str(loc[0]), str(item.get("type", "invalid")))
    return out


def _fields_by_key(model: type[BaseModel]) -> dict[str, tuple[str, Any]]:
    return {info.alias or name: (name, info) for name, info in model.model_fields.items()}


def identity_unreadable(item: Any) -> bool:
    """True when a required field of `item` (its id, iid, key, name...) could not be read, or the item was
    not an object at all: it is shown, but no action may use it."""
    names = getattr(item, "unreadable", ())
    if not names:
        return False
    fields = type(item).model_fields
    return any(name == NOT_AN_OBJECT or (name in fields and fields[name].is_required()) for name in names)


def placeholder_in_path(path: str) -> bool:
    """True when an API path (relative, query left aside) has an empty segment or a negative-number
    segment: what a placeholder identity (`""` or a negative id) makes of it. GitLab has neither."""
    if path.startswith(("http://", "https://")):
        return False
    path = path.split("?", 1)[0]
    return path not in ("", "/") and _PLACEHOLDER_SEGMENT.search(path.removeprefix("/")) is not None


def _placeholder(annotation: Any) -> Any:
    """A stand-in for a required field that could not be read; `...` when there is none for its type."""
    if annotation is bool:
        return False
    if annotation is int or int in get_args(annotation):
        return next(_placeholders)
    if annotation is float:
        return 0.0
    return ...


def read_leniently(model: type[T], data: Any, context: dict[str, Any], *, report: bool = True,
                   keep: bool = False) -> tuple[T | None, tuple[str, ...]]:
    """`(instance, unreadable field names)`, or `(None, names)` when the item cannot stand (a required
    non-string field unreadable, or not an object at all). `keep` (an item of a list): the item stands
    anyway, with placeholders where its required fields could not be read (see the module docstring).
    `report`: send the warnings (the top call does; nested calls leave it to their parent so each item is
    reported once)."""
    label = _label(model, data)
    unreadable: list[str] = []
    details: list[str] = []
    if not isinstance(data, dict):
        if not keep:
            if report:
                warn(label, f"not an object ({type(data).__name__}): left out")
            return None, ()
        unreadable.append(NOT_AN_OBJECT)
        details.append(f"not an object ({type(data).__name__}): kept as a placeholder")
        data = {}
    work = dict(data)
    fields = _fields_by_key(model)
    for _ in range(MAX_PASSES):
        try:
            instance = model.model_validate(work, context=context)
        except ValidationError as exc:
            reasons = _reasons(exc)
        else:
            if unreadable:
                unreadable = list(dict.fromkeys(unreadable))
                object.__setattr__(instance, "unreadable", tuple(unreadable))
                if report:
                    warn(label, "unreadable " + "; ".join(details))
            return instance, tuple(unreadable)
        for key, reason in reasons.items():
            if key not in fields:  # an error outside the declared fields: nothing we can drop
                continue
            _, info = fields[key]
            nested = _nested(info.annotation)
            value = work.get(key)
            if nested is not None and nested[0] == "one" and isinstance(value, dict):
                sub, names = read_leniently(nested[1], value, context, report=False)
                if sub is not None:
                    work[key] = sub
                    unreadable.extend(f"{key}.{name}" for name in names)
                    details.append(f"{key}: {', '.join(names)}")
                    continue
            if nested is not None and nested[0] == "list" and isinstance(value, list):
                kept = []
                for element in value:
                    sub, names = read_leniently(nested[1], element, context, report=False)
                    if sub is not None:
                        kept.append(sub)
                    if names or sub is None:
                        unreadable.append(key)
                work[key] = kept
                details.append(f"{key}: an element ({reason})")
                continue
            if not info.is_required():
                work.pop(key, None)
            elif _accepts_str(info.annotation):
                work[key] = ""
            elif keep and (stand_in := _placeholder(info.annotation)) is not ...:
                work[key] = stand_in
                details.append(f"{key} ({reason}): kept, nothing can act on it")
                unreadable.append(key)
                continue
            else:
                if report:
                    warn(label, f"{key} unreadable ({reason}): left out")
                return None, (*unreadable, key)
            unreadable.append(key)
            if NOT_AN_OBJECT not in unreadable:  # a placeholder's missing fields go without saying
                details.append(f"{key} ({reason})")
    if report:
        warn(label, "could not be read: left out")
    return None, tuple(unreadable)
