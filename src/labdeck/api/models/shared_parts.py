"""Parts that repeat across a listing, validated once and shared: a 50,000-issue listing names a few
thousand users, a few dozen labels and a few hundred milestones, yet validating every copy built 50,000
authors, 50,000 assignee lists and 150,000 labels. `SharedParts` replaces each such part of a decoded
(already sanitised) item by the one model validated for that exact JSON text, before the item itself is
validated (pydantic keeps a model instance given for a model field as it is), and shares equal raw
values of unknown fields too. Models are never changed after parsing, so sharing them is safe.
`share_field_sets` then gives the parsed models one set of field names per distinct set (pydantic keeps
a set per instance: 2 KB of a 6.7 KB issue; `model_copy` copies it, so sharing it is safe too).
"""

from __future__ import annotations

from typing import Any

import orjson
from pydantic import BaseModel, ValidationError

from labdeck.api.models.base import sanitised_context


class SharedParts:
    """One table of shared parts (keep one per listing, across its pages).

    `models`: field name -> model of a single part (`author`) or of each element of a list (`labels`);
    `raw`: names of unknown fields whose equal values may be shared as they are (`assignee`)."""

    def __init__(self, models: dict[str, type[BaseModel]], raw: tuple[str, ...] = ()) -> None:
        self._models = models
        self._raw = raw
        self._seen: dict[tuple[Any, Any], Any] = {}
        self._field_sets: dict[frozenset[str], set[str]] = {}
        self._context = sanitised_context()

    def __len__(self) -> int:
        return len(self._seen)

    def _one(self, name: str, model: type[BaseModel] | None, value: Any) -> Any:
        if not isinstance(value, dict):
            return value  # None, or a wrong shape that the item's own validation reports
        kind = model or name  # parts of one model are shared across fields (author, assignees)
        try:  # a flat part (a user, a label): its items, with the type of each value (1 is not True)
            key: Any = (kind, tuple(value.items()), tuple(map(type, value.values())))
            found = self._seen.get(key)
        except TypeError:  # a value is a list or an object: the part's JSON text
            try:
                key = (kind, orjson.dumps(value))
            except TypeError:  # not plain JSON data (cannot come from a decoded body)
                return value
            found = self._seen.get(key)
        if found is None:
            if model is None:
                found = value
            else:
                try:
                    found = model.model_validate(value, context=self._context)
                except ValidationError:
                    return value  # validated again with the item, which names the place
            self._seen[key] = found
        return found

    def share_field_sets(self, models: list[Any], *parts: str) -> None:
        """One `__pydantic_fields_set__` per distinct set for `models` and their model fields `parts`."""
        sets = self._field_sets
        for model in models:
            for target in (model, *(getattr(model, name, None) for name in parts)):
                if isinstance(target, BaseModel):
                    names = target.__pydantic_fields_set__
                    canonical = sets.setdefault(frozenset(names), names)
                    if canonical is not names:
                        object.__setattr__(target, "__pydantic_fields_set__", canonical)

    def share(self, items: list[Any]) -> list[Any]:
        """`items` (decoded, sanitised dicts) with their repeated parts replaced by shared ones, in place."""
        for item in items:
            if not isinstance(item, dict):
                continue
            for name, model in self._models.items():
                value = item.get(name)
                if isinstance(value, list):
                    item[name] = [self._one(name, model, v) for v in value]
                elif value is not None:
                    item[name] = self._one(name, model, value)
            for name in self._raw:
                value = item.get(name)
                if value is not None:
                    item[name] = self._one(name, None, value)
        return items
