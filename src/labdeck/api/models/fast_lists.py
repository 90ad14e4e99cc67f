"""Listing pages parsed straight from the response bytes into the screens' models (issue 16, goal 1).

`ListDecoder(model)` decodes a page's JSON array with msgspec into a typed dict per item, its type built
once from the pydantic model's own declared fields (so there is no second list of fields to keep in step),
then makes each dict the pydantic model's own `__dict__` without validating again (msgspec already checked
every type strictly). Unknown fields are skipped while decoding, never built: a listing row holds the
declared fields only (a model parsed from a single-item answer, `parse_one`, still keeps them). Parts of
scalars that repeat across a listing (users, labels, milestones, namespaces, ...) stay raw JSON text while
the page decodes and are built once per distinct text and shared.

Control characters are made visible as everywhere else: one check of the page's raw bytes
(`may_hold_control`); only when it says a control character can be present are the rows' strings
sanitised. The values a row gets are what pydantic gives for the same JSON: msgspec is strict (no
coercion), so whatever pydantic would have to coerce, or would reject, makes `decode` return None and the
caller takes the tolerant path (`parse_many`, which reads each item leniently when the page fails).

Why msgspec (a dependency since issue 16): it decodes JSON into typed objects in C and skips the fields a
type does not declare, 4 to 7 microseconds for a 3 to 4 KB item, where decoding every value (orjson) then
validating it (pydantic) cost 60 to 110. It is a small, well-kept library with wheels for every platform.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from datetime import UTC, date, datetime
from functools import cache
from typing import Annotated, Any, Final, Generic, Required, TypedDict, TypeVar, Union, get_args, get_origin

import msgspec
from pydantic import BaseModel

from labdeck.api.models.base import ApiModel, paused_gc
from labdeck.domain.text import may_hold_control, sanitize, sanitize_deep

M = TypeVar("M", bound=BaseModel)
UNSET: Final = msgspec.UNSET
_SCALARS: Final = (int, str, bool, float, type(None))
PROBE: Final = 200  # look-ups of a part before deciding whether it repeats enough to share
# The integers orjson reads as integers (it reads larger ones as floats, which pydantic then refuses).
_INT: Final = Annotated[int, msgspec.Meta(ge=-(2**63), le=2**63 - 1)]  # (int64: larger ones refused)
_new: Callable[[type[Any]], Any] = object.__new__
_set = object.__setattr__


class Unsupported(Exception):
    """A model with a field type (or a validator) the fast path cannot mirror exactly."""


# -- Structs from models ---------------------------------------------------------------------------------

def _union(args: tuple[Any, ...]) -> Any:
    out = args[0]
    for arg in args[1:]:
        out = out | arg
    return out


def _decoded_type(annotation: Any, part_of: Callable[[type[BaseModel]], type]) -> Any:
    """The msgspec type that decodes what pydantic accepts strictly for `annotation`."""
    if annotation is int:
        return _INT
    if annotation in _SCALARS or annotation in (datetime, date):
        return annotation
    if annotation is object or annotation is Any:
        return Any
    if isinstance(annotation, type) and issubclass(annotation, ApiModel):
        return part_of(annotation)
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        return _union(tuple(_decoded_type(arg, part_of) for arg in args))
    if origin is list and len(args) == 1:
        return tuple[_decoded_type(args[0], part_of), ...]  # type: ignore[misc]
    if origin is dict and len(args) == 2 and args[0] is str:
        return dict[str, _decoded_type(args[1], part_of)]  # type: ignore[misc]
    raise Unsupported(repr(annotation))


def _check_validators(model: type[BaseModel], allowed: frozenset[str]) -> None:
    """Refuse a model whose validators would change values the fast path copies as decoded."""
    decorators = model.__pydantic_decorators__
    for name in decorators.model_validators:
        if name != "_aware":
            raise Unsupported(f"{model.__name__}.{name}")
    for info in decorators.field_validators.values():
        if set(info.info.fields) - allowed:
            raise Unsupported(f"{model.__name__}: validator of {info.info.fields}")
    if decorators.field_serializers or decorators.model_serializers or model.__pydantic_root_model__:
        raise Unsupported(model.__name__)


class _Shape:
    """How one model is decoded and built. A part of scalars only (a user, a label) is kept as its raw JSON
    text while the page decodes (`msgspec.Raw`, no copy); equal texts are decoded and built once per
    listing and shared. Any other model decodes into a dict of its declared fields (a TypedDict: only the
    keys that were sent), which becomes the model's own `__dict__`."""

    hashable: bool  # scalars only (set at the end of __init__, which builds the shapes of its parts first)

    def __init__(self, model: type[BaseModel], names_as: dict[str, str]) -> None:
        _check_validators(model, frozenset(names_as))
        self.model = model
        # (field, part shape, decoder of one raw part, None allowed): single parts and lists of parts
        self.parts: list[tuple[str, _Shape, msgspec.json.Decoder[Any], bool]] = []
        self.lists: list[tuple[str, _Shape, msgspec.json.Decoder[Any], str | None]] = []  # + bare name
        self.nested: list[tuple[str, _Shape]] = []  # models of more than scalars (decoded in place)
        self.plain_lists: list[str] = []  # other lists (tuples when decoded)
        self.times: list[str] = []  # datetime fields (naive ones are UTC)
        self.texts: list[str] = []  # fields that may hold strings (sanitised when the page needs it)
        self.defaults: dict[str, Any] = {}
        required: set[str] = set()
        kinds: dict[str, Any] = {}
        for name, info in model.model_fields.items():
            if info.alias not in (None, name) or info.default_factory is not None:
                raise Unsupported(f"{model.__name__}.{name}")
            annotation = info.annotation
            kind = _decoded_type(annotation, lambda sub: shape_of(sub).decoded)
            element, optional = annotation, False
            if get_origin(annotation) in (Union, types.UnionType):
                element = next(a for a in get_args(annotation) if a is not type(None))
                optional = type(None) in get_args(annotation)
            item = get_args(element)[0] if get_origin(element) is list else None
            if isinstance(item, type) and issubclass(item, BaseModel) and shape_of(item).hashable:
                sub, bare = shape_of(item), names_as.get(name)
                one = sub.decoded | str if bare is not None else sub.decoded  # bare: plain label names
                self.lists.append((name, sub, msgspec.json.Decoder(one), bare))
                kind = tuple[msgspec.Raw, ...] | None if optional else tuple[msgspec.Raw, ...]
            elif item is not None:
                if (isinstance(item, type) and issubclass(item, BaseModel)) or names_as.get(name):
                    raise Unsupported(f"{model.__name__}.{name}: a list of {item}")
                self.plain_lists.append(name)
                self.texts.append(name)
            elif isinstance(element, type) and issubclass(element, BaseModel):
                sub = shape_of(element)
                if sub.hashable:
                    decoder = msgspec.json.Decoder(sub.decoded | None if optional else sub.decoded)
                    self.parts.append((name, sub, decoder, optional))
                    kind = msgspec.Raw
                else:
                    self.nested.append((name, sub))
            elif element is datetime:
                self.times.append(name)
            elif element not in (int, bool, float, date):
                self.texts.append(name)
            kinds[name] = kind
            if info.is_required():
                required.add(name)
            else:
                self.defaults[name] = info.default
        self.count = len(kinds)
        self.hashable = all(_is_scalar(info.annotation) for info in model.model_fields.values())
        if self.hashable:
            self.decoded: Any = msgspec.defstruct(
                f"_{model.__name__}Part",
                [(n, k) if n in required else (n, k | msgspec.UnsetType, UNSET) for n, k in kinds.items()],
                kw_only=True, gc=False)
        else:
            # a TypedDict built at run time, one per model (mypy reads only literal ones)
            self.decoded = TypedDict(f"_{model.__name__}Row",  # type: ignore[misc]
                                     {n: Required[k] if n in required else k for n, k in kinds.items()},
                                     total=False)
        self.mutable_defaults = {n for n, v in self.defaults.items() if isinstance(v, list | dict | set)}
        self.all_names = set(kinds)
        self._sets: dict[frozenset[str], tuple[set[str], tuple[str, ...]]] = {}

    def fields_set(self, values: dict[str, Any]) -> set[str]:
        """The names sent (one shared set per distinct set), with the defaults of the others filled in."""
        if len(values) == self.count:
            return self.all_names
        key = frozenset(values)
        found = self._sets.get(key)
        if found is None:
            found = self._sets[key] = (set(key), tuple(self.all_names - key))
        names, missing = found
        for name in missing:
            default = self.defaults[name]
            values[name] = type(default)(default) if name in self.mutable_defaults else default
        return names


def _is_scalar(annotation: Any) -> bool:
    plain = (*_SCALARS, datetime, date)
    return annotation in plain or (get_origin(annotation) in (Union, types.UnionType)
                                   and all(a in plain for a in get_args(annotation)))


_SHAPES: dict[tuple[type[BaseModel], tuple[tuple[str, str], ...]], _Shape] = {}


def shape_of(model: type[BaseModel], names_as: dict[str, str] | None = None) -> _Shape:
    """The shape of `model` (built once); `names_as`: list fields whose elements may be bare strings,
    each meaning a model with only the named field set (an issue's plain label names)."""
    key = (model, tuple(sorted((names_as or {}).items())))
    shape = _SHAPES.get(key)
    if shape is None:
        shape = _SHAPES[key] = _Shape(model, names_as or {})
    return shape


# -- models from decoded rows ----------------------------------------------------------------------------

class _Shared:
    """What the pages of one listing share: per part shape and `clean`, decoded part -> its model. A part
    that rarely repeats (an issue's references) stops being shared once its table would mostly hold values
    seen once (`settle`). Pages may be built in several threads at once: the worst a race does is build
    one part twice."""

    def __init__(self) -> None:
        self.tables: dict[tuple[_Shape, bool], dict[Any, Any]] = {}
        self.misses: dict[_Shape, int] = {}
        self.unshared: set[_Shape] = set()
        self.rows = 0

    def settle(self, rows: int) -> None:
        """After a page: stop sharing the parts that were mostly new (each distinct part was built anyway)."""
        self.rows += rows
        if self.rows >= PROBE:
            for shape, misses in list(self.misses.items()):
                if misses * 2 > self.rows and shape not in self.unshared:
                    self.unshared.add(shape)
                    self.tables.pop((shape, True), None)
                    self.tables.pop((shape, False), None)


class _Build:
    """Builds the models of one page from its decoded rows: parts shared, strings sanitised unless `clean`
    (no control character can be in the page)."""

    def __init__(self, shared: _Shared, clean: bool) -> None:
        self.shared = shared
        self.clean = clean
        tables = shared.tables
        self.tables = {shape: None if shape in shared.unshared else tables.setdefault((shape, clean), {})
                       for shape in list(_SHAPES.values()) if shape.hashable}

    def model(self, shape: _Shape, values: dict[str, Any]) -> Any:
        names = shape.fields_set(values)
        tables, part = self.tables, self.part
        for name, sub, decoder, optional in shape.parts:
            raw = values[name]
            if raw is not None:  # None: the default of a field that was not sent
                key = bytes(raw)
                if optional and key == b"null":
                    values[name] = None
                    continue
                table = tables.get(sub)
                found = None if table is None else table.get(key)
                values[name] = part(sub, decoder, key, table) if found is None else found
        for name, sub, decoder, bare in shape.lists:
            raws = values[name]
            if raws:
                table = tables.get(sub)
                out = []
                for raw in raws:
                    key = bytes(raw)
                    found = None if table is None else table.get(key)
                    out.append(part(sub, decoder, key, table, bare) if found is None else found)
                values[name] = out
            elif raws is not None:
                values[name] = []
        for name, sub in shape.nested:
            value = values[name]
            if value is not None:
                values[name] = self.model(sub, value)
        for name in shape.plain_lists:
            value = values[name]
            if type(value) is tuple:
                values[name] = list(value)
        for name in shape.times:
            value = values[name]
            if value is not None and value.tzinfo is None:
                values[name] = value.replace(tzinfo=UTC)
        if not self.clean:
            for name in shape.texts:
                value = values[name]
                if value is not None:
                    values[name] = sanitize(value) if type(value) is str else sanitize_deep(value)
        out = _new(shape.model)
        _set(out, "__dict__", values)
        _set(out, "__pydantic_fields_set__", names)
        _set(out, "__pydantic_extra__", {})
        _set(out, "__pydantic_private__", None)
        return out

    def part(self, shape: _Shape, decoder: msgspec.json.Decoder[Any], key: bytes,
             table: dict[Any, Any] | None, bare: str | None = None) -> Any:
        """A part not found in its table: decoded from its JSON text (strictly: a wrong one fails the
        page), built, and kept in the table when its shape is shared."""
        row = decoder.decode(key)
        if row is None:
            return None
        if type(row) is str:  # a plain label name: the model with only `bare` set
            built = shape.model.model_validate({bare: row})  # sanitises
        else:
            values = msgspec.structs.asdict(row)
            built = self.model(shape, {k: v for k, v in values.items() if v is not UNSET})
        if table is not None:
            table[key] = built
            misses = self.shared.misses
            misses[shape] = misses.get(shape, 0) + 1
        return built


class ListDecoder(Generic[M]):
    """Pages of one listing of `model` (keep one per listing, across its pages: parts are shared)."""

    def __init__(self, model: type[M], *, names_as: dict[str, str] | None = None) -> None:
        self.model = model
        self.shape = shape_of(model, names_as)
        self._decoder = decoder_for(model, self.shape.decoded)
        self._shared = _Shared()

    def decode(self, body: bytes) -> list[M] | None:
        """The page's rows, or None when the fast path cannot give exactly what pydantic would (a wrong
        shape, a value pydantic would coerce, bad JSON): the caller then takes the tolerant path."""
        # strict_json: the check's answer is used only once msgspec has decoded the page (strictly)
        build = _Build(self._shared, clean=not may_hold_control(body, strict_json=True))
        try:
            with paused_gc():
                rows = self._decoder.decode(body)
                if self.shape.hashable:  # a model of scalars only decodes into structs: their sent fields
                    rows = [{k: v for k, v in msgspec.structs.asdict(row).items() if v is not UNSET}
                            for row in rows]
                out = [build.model(self.shape, row) for row in rows]
        except (msgspec.ValidationError, msgspec.DecodeError, ValueError, OverflowError):
            return None
        self._shared.settle(len(out))
        return out


@cache
def decoder_for(model: type[BaseModel], decoded: Any) -> msgspec.json.Decoder[Any]:
    return msgspec.json.Decoder(list[decoded])


def fast_decoder(model: type[M], **options: Any) -> ListDecoder[M] | None:
    """A `ListDecoder` for `model`, or None when its fields cannot be mirrored exactly."""
    try:
        return ListDecoder(model, **options)
    except Unsupported:
        return None
