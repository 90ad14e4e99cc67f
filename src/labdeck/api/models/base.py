"""`ApiModel`, the base of every resource model: extra fields kept, every string sanitised, timestamps
parsed (always timezone-aware); `parse_one`/`parse_many` turn a wrong shape into `MalformedResponse`,
never a bare pydantic error."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import cache
from typing import Any, TypeVar, get_args

from pydantic import BaseModel, ConfigDict, ValidationError, model_validator

from labdeck.api.errors import MalformedResponse
from labdeck.domain.text import sanitize_deep

M = TypeVar("M", bound="ApiModel")


class ApiModel(BaseModel):
    """A resource as the server sent it: unknown fields are kept (sanitised too), known ones typed."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _sanitise(cls, data: Any) -> Any:
        return sanitize_deep(data)

    @model_validator(mode="after")
    def _aware(self) -> Any:
        """A timestamp without an offset is UTC (as GitLab means it): naive and aware datetimes cannot be
        compared or subtracted, so a naive one would break ages, sorting and cleanup rules later on."""
        for name in _datetime_fields(type(self)):
            value = self.__dict__.get(name)
            if isinstance(value, datetime) and value.tzinfo is None:
                self.__dict__[name] = value.replace(tzinfo=UTC)
        return self


@cache
def _datetime_fields(model: type[BaseModel]) -> tuple[str, ...]:
    """The fields of `model` declared as `datetime` (or `datetime | None`)."""
    return tuple(name for name, info in model.model_fields.items()
                 if info.annotation is datetime or datetime in get_args(info.annotation))


def _where(error: ValidationError) -> str:
    first = error.errors()[0] if error.errors() else {}
    loc = ".".join(str(part) for part in first.get("loc", ())) or "body"
    return f"{loc}: {first.get('type', 'invalid')}"


def parse_one(model: type[M], data: Any) -> M:
    """`model` from decoded JSON; `MalformedResponse` when the shape is wrong."""
    if not isinstance(data, dict):
        raise MalformedResponse(f"expected a {model.__name__} object, got {type(data).__name__}")
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise MalformedResponse(f"unexpected {model.__name__} shape ({_where(exc)})") from None


def parse_many(model: type[M], data: Any) -> list[M]:
    """A list of `model` from decoded JSON; `MalformedResponse` when the shape is wrong."""
    if not isinstance(data, list):
        raise MalformedResponse(f"expected a list of {model.__name__}, got {type(data).__name__}")
    return [parse_one(model, item) for item in data]
