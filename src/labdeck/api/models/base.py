"""`ApiModel`, the base of every resource model: extra fields kept, every string sanitised, timestamps
parsed (always timezone-aware); `parse_one`/`parse_many` turn a wrong shape into `MalformedResponse`,
never a bare pydantic error. An item that does not fit its model is read tolerantly (`tolerant.py`): the
fields that could not be read are named in its `unreadable`, the rest is kept, and a list never fails
because of one item, nor loses one (an item whose id is unreadable is kept, marked, and cannot be acted on).

Sanitising happens once per parse: `parse_one`/`parse_many` walk the decoded JSON once (or not at all when
the caller says it is already clean, `sanitised=True`, as the client's list pages are) and validate with
`SANITISED` set in the validation context, so no model inside walks its strings again. A model validated
without that flag (`Model.model_validate(data)`) sanitises its own input, as every nested model does then.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, nullcontext
from datetime import UTC, date, datetime
from functools import cache
from typing import Annotated, Any, ClassVar, Final, Self, TypeVar, cast, get_args

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    TypeAdapter,
    ValidationError,
    model_validator,
)

from labdeck.api.errors import MalformedResponse
from labdeck.api.models.tolerant import read_leniently
from labdeck.domain.text import sanitize_deep, sanitize_json

M = TypeVar("M", bound="ApiModel")

# Validation context key: True when every string of the input has been sanitised already (never set by
# a model itself, only by whoever walked the whole input: see the module docstring).
SANITISED: Final = "labdeck.sanitised"


# Lists at least this long are built with the cyclic garbage collector paused (see `paused_gc`).
LONG_LIST: Final = 200


@contextmanager
def paused_gc() -> Iterator[None]:
    """Pause the cyclic garbage collector while a large, acyclic structure is built (decoded JSON, models):
    every few hundred allocations it would otherwise walk the whole growing heap again, which costs more
    than the work itself (50,000 issues: 3.3 s to parse with it, 0.9 s without). It is switched back on
    at the end unless it was already off when this started (nested or concurrent uses are fine).

    It used to hand what the pause piled up to the oldest generation (`gc.freeze()` + `gc.unfreeze()`)
    when `gc.get_freeze_count()` said nobody had frozen objects on purpose; but that count walks the whole
    permanent generation, which the sandbox's seed and the table's frozen rows (`gc_pacing`) fill: each
    page read cost 14 ms and more as the process grew (a 120-page read took 4.6 s, now 1.7 s; loading
    50,000 issues is no slower without it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def sanitised_context() -> dict[str, Any]:
    """A validation context saying the input is already sanitised."""
    return {SANITISED: True}


class ApiModel(BaseModel):
    """A resource as the server sent it: unknown fields are kept (sanitised too), known ones typed."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)
    # The fields that could not be read (tolerant reading); set on the instance only when there are some.
    unreadable: ClassVar[tuple[str, ...]] = ()

    @classmethod
    def model_validate(cls, obj: Any, **kwargs: Any) -> Self:
        """Validate `obj`, walked once for control characters first unless the validation context says it
        is clean already (`SANITISED`): nested models never walk again, they are validated inside."""
        context = kwargs.get("context")
        if not (isinstance(context, dict) and context.get(SANITISED) is True):
            obj = sanitize_deep(obj)
        return super().model_validate(obj, **kwargs)

    @model_validator(mode="after")
    def _aware(self) -> Any:
        """A timestamp without an offset is UTC (as GitLab means it): naive and aware datetimes cannot be
        compared or subtracted, so a naive one would break ages, sorting and cleanup rules later on."""
        names = _datetime_fields(type(self))
        if names:
            values = self.__dict__
            for name in names:
                value = values.get(name)
                if isinstance(value, datetime) and value.tzinfo is None:
                    values[name] = value.replace(tzinfo=UTC)
        return self


@cache
def _datetime_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of `model` declared as `datetime` (or `datetime | None`)."""
    return tuple(name for name, info in model.model_fields.items()
                 if info.annotation is datetime or datetime in get_args(info.annotation))


def _date_or_datetime(value: Any) -> Any:
    """`2026-05-01` as is; `2026-05-01T00:00:00Z` (GitLab documents some dates that way) as its date."""
    if isinstance(value, str) and len(value) > 10 and value[10:11] in ("T", " "):
        return value[:10]
    if isinstance(value, datetime):
        return value.date()
    return value


# A calendar date that GitLab may send as a date or as a timestamp (a member's `expires_at`).
LenientDate = Annotated[date, BeforeValidator(_date_or_datetime)]


@cache
def list_adapter(model: type[M]) -> TypeAdapter[list[M]]:
    """`TypeAdapter(list[model])`, built once per model (validating a whole page in one call)."""
    return TypeAdapter(list[model])  # type: ignore[valid-type]


def _where(error: ValidationError) -> str:
    first: Mapping[str, Any] = error.errors()[0] if error.errors() else {}
    loc = ".".join(str(part) for part in first.get("loc", ())) or "body"
    return f"{loc}: {first.get('type', 'invalid')}"


def parse_one(model: type[M], data: Any, *, sanitised: bool = False) -> M:
    """`model` from decoded JSON (walked once for control characters unless `sanitised`);
    `MalformedResponse` when the shape is wrong."""
    if not isinstance(data, dict):
        raise MalformedResponse(f"expected a {model.__name__} object, got {type(data).__name__}")
    clean = data if sanitised else sanitize_deep(data)
    try:
        return model.model_validate(clean, context=sanitised_context())
    except ValidationError as exc:
        item, _ = read_leniently(model, clean, sanitised_context())
        if item is None:
            raise MalformedResponse(f"unexpected {model.__name__} shape ({_where(exc)})") from None
        return item


def parse_many(model: type[M], data: Any, *, sanitised: bool = False) -> list[M]:
    """A list of `model` from decoded JSON (walked once unless `sanitised`); `MalformedResponse` when it
    is not a list. The whole list is validated in one call; only when that fails is each item read on its
    own, tolerantly (`read_each`: unreadable fields named, an item whose id is unreadable kept as a
    marked placeholder, both reported to `:log`); `MalformedResponse` when not one element is an object.
    A long list is parsed with the garbage collector paused (`paused_gc`)."""
    if not isinstance(data, list):
        raise MalformedResponse(f"expected a list of {model.__name__}, got {type(data).__name__}")
    if data and all(type(item) is model for item in data):  # parsed already (a cached or fast listing)
        return list(data)
    with paused_gc() if len(data) >= LONG_LIST else nullcontext():
        clean = data if sanitised else cast("list[Any]", sanitize_json(data))  # a list stays a list
        try:
            return list_adapter(model).validate_python(clean, context=sanitised_context())
        except ValidationError:
            return read_each(model, clean)


def read_each(model: type[M], items: list[Any]) -> list[M]:
    """Each item of an already sanitised list read on its own, tolerantly (the slow path of a list
    whose strict validation failed). Every item is kept, one for one: an item whose id could not be read,
    or an element that is not an object, stands as a marked placeholder (`tolerant.identity_unreadable`).
    `MalformedResponse` only when not one element is an object: the answer is not a list of these."""
    if items and not any(isinstance(item, dict) for item in items):
        raise MalformedResponse(f"unexpected {model.__name__} shape: no item is an object")
    context = sanitised_context()
    out: list[M] = []
    for item in items:
        try:
            out.append(model.model_validate(item, context=context))
        except ValidationError:
            read, _ = read_leniently(model, item, context, keep=True)
            if read is not None:  # None only for a model with a required field no placeholder fits
                out.append(read)
    return out
