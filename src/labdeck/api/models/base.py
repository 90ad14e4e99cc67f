"""`ApiModel`, the base of every resource model: extra fields kept, every string sanitised, timestamps
parsed; `parse_one`/`parse_many` turn a wrong shape into `MalformedResponse`, never a bare pydantic error."""

from __future__ import annotations

from typing import Any, TypeVar

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
