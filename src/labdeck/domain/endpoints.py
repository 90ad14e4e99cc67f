"""What an endpoint is: a method and a path template with typed segments, and the facts the layers read
from it (cache family, the feature it needs, whether a CI job token reaches it, its undo rule). The feature
(`labdeck.domain.features.Feature`) and the undo rule (`labdeck.domain.undo_rules.UndoRule`) are objects the
endpoint holds, never names; the model of its body is the api's (`labdeck.api.bindings`), not the domain's.

The declarations themselves are in `labdeck.domain.catalogue`; this module is the mechanism:

- `Endpoint.path(...)` builds a path (relative to `/api/v4`): every value goes through the one segment
  encoder (`labdeck.domain.paths.segment`), so a name is never a path; an `int` segment takes integers only.
- `Endpoint.match(path)` reads the values back out of a path (decoded), for the journal's undo rules.
- `Endpoint.families(...)` is what a change through it empties in the list cache.
- `shape(template)` forgets the segment names (`/projects/{}/issues/{}`), so templates of other spellings
  (the sandbox's Starlette routes) are compared with the catalogue's.

Template segments: `{project}` is text (an id or a full path), `{user_id:int}` an integer, `{tag:path}` text
that may hold `/` when matched (sent encoded all the same).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Final, Literal, NewType
from urllib.parse import unquote

from labdeck.domain.digits import integer_value
from labdeck.domain.features import Feature
from labdeck.domain.paths import segment

if TYPE_CHECKING:
    from labdeck.domain.undo_rules import UndoRule

Method = Literal["GET", "POST", "PUT", "PATCH", "DELETE"]
_PLACEHOLDER: Final = re.compile(r"\{(\w+)(?::(\w+))?\}")
_MATCHERS: Final = {"text": r"[^/]+", "int": r"[0-9]+", "path": r".+"}
# What every paged list takes (doc/api/rest/index.md, "Pagination"): offset pages, and keyset pages, which
# GitLab orders by `order_by`/`sort` (the next page is a `Link` URL, sent as the server wrote it).
PAGINATION: Final = frozenset({"page", "per_page", "pagination", "order_by", "sort"})


# A path that is not the catalogue's, sent as it is: a `Link` URL the server gave, a path typed to
# `labdeck api`, one the journal stored. The client's methods take an `ApiPath`, so mypy holds every other
# path in the source to the catalogue (`RawPath(text)` says, where it is written, that it is not).
RawPath = NewType("RawPath", str)


class UndeclaredRequest(TypeError):
    """A programming error: a request the catalogue does not declare for its endpoint (a query parameter it
    does not list, or another method). Raised before anything is sent."""


class EndpointPath(str):
    """A path built by `Endpoint.path`: the text sent, `endpoint`, what it is in the catalogue, and
    `placeholder`: one of its values is what a row whose id could not be read holds (a negative id, an empty
    text), so the client refuses it. Told by the values themselves: a tag or label *named* `-0` is a name."""

    endpoint: Endpoint
    placeholder: bool

    def __new__(cls, text: str, endpoint: Endpoint, placeholder: bool = False) -> EndpointPath:
        made = super().__new__(cls, text)
        made.endpoint = endpoint
        made.placeholder = placeholder
        return made

    def __reduce__(self) -> tuple[type[EndpointPath], tuple[str, Endpoint, bool]]:
        """Copied and pickled with its endpoint (`str`'s own way would call `__new__` with the text only)."""
        return EndpointPath, (str(self), self.endpoint, self.placeholder)


def _placeholder_value(value: object) -> bool:
    """A tolerant model's stand-in for an identity it could not read: a negative integer, or empty text."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value < 0
    return isinstance(value, str) and value == ""


ApiPath = EndpointPath | RawPath


def names(text: str) -> frozenset[str]:
    """Query parameter names written as one string: `names("search order_by sort")`."""
    return frozenset(text.split())


def shape(template: str) -> str:
    """A template with its segment names and types left out: `/projects/{id}/tags/{tag_name:path}` and
    `/projects/{project}/tags/{tag:path}` both give `/projects/{}/tags/{}`."""
    return _PLACEHOLDER.sub("{}", template)


def _segment_value(name: str, kind: str, value: object) -> str:
    if kind == "int":
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise TypeError(f"{name} must be an integer, not {type(value).__name__}")
        number = integer_value(value)
        if number is None:  # "../x", "²", "٣": never sent
            raise ValueError(f"{name} must be an integer in ASCII digits")
        return str(number)
    return segment(value)  # "" stays an empty segment: the client refuses it as an unreadable identity


@dataclass(frozen=True)
class Endpoint:
    """One REST endpoint. `family`: the template of the cached lists a change through it empties (None:
    its own template); `also`: other families it changes, written over the same segment names;
    `feature`: the `Feature` it needs (edition, version); `job_token`: a CI job token authenticates here;
    `undo`: the journal's rule for it (an `UndoRule`, `labdeck.domain.undo_rules`); `params`: the query
    parameters labdeck may send (names as the service writes them: `filter` for `filter[environment_scope]`);
    `paged`: a list walked page by page (it takes `PAGINATION` too); `retry_safe`: the client may send it
    again after a lost answer (False for a PUT that also creates: a rule sent with no id is added twice)."""

    method: Method
    template: str
    family: str | None = None
    also: tuple[str, ...] = ()
    feature: Feature | None = None
    job_token: bool = False
    undo: UndoRule | None = field(default=None, compare=False)
    params: frozenset[str] = frozenset()
    paged: bool = False
    retry_safe: bool = True
    name: str = ""
    segments: tuple[tuple[str, str], ...] = field(init=False, repr=False, compare=False)
    _pattern: re.Pattern[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = tuple((m.group(1), m.group(2) or "text") for m in _PLACEHOLDER.finditer(self.template))
        for _, kind in parts:
            if kind not in _MATCHERS:
                raise ValueError(f"{self.template}: unknown segment type {kind}")
        pattern = ""
        last = 0
        for m in _PLACEHOLDER.finditer(self.template):
            pattern += re.escape(self.template[last:m.start()])
            pattern += f"(?P<{m.group(1)}>{_MATCHERS[m.group(2) or 'text']})"
            last = m.end()
        pattern += re.escape(self.template[last:])
        object.__setattr__(self, "segments", parts)
        object.__setattr__(self, "_pattern", re.compile(pattern))

    @property
    def shape(self) -> str:
        return shape(self.template)

    @property
    def literal_length(self) -> int:
        """How much of the template is fixed text (the more, the more specific a match)."""
        return len(shape(self.template)) - 2 * len(self.segments)

    def _values(self, args: tuple[object, ...], kwargs: dict[str, object]) -> dict[str, object]:
        names = [name for name, _ in self.segments]
        if len(args) > len(names):
            raise TypeError(f"{self.name}: {len(names)} segments, {len(args)} given")
        values = dict(zip(names, args, strict=False))
        for key, value in kwargs.items():
            if key not in names or key in values:
                raise TypeError(f"{self.name}: unexpected or repeated segment {key}")
            values[key] = value
        missing = [n for n in names if n not in values]
        if missing:
            raise TypeError(f"{self.name}: missing {', '.join(missing)}")
        return values

    def path(self, *args: object, **kwargs: object) -> EndpointPath:
        """The path for these segment values (positional in template order, or by name), each encoded."""
        values = self._values(args, kwargs)
        kinds = dict(self.segments)
        encoded = {k: _segment_value(k, kinds[k], v) for k, v in values.items()}
        placeholder = any(_placeholder_value(v) for v in values.values())
        return EndpointPath(_fill(self.template, encoded), self, placeholder)

    @property
    def accepted(self) -> frozenset[str]:
        """Every query parameter this endpoint takes: its own, and the pagination ones when paged."""
        return self.params | PAGINATION if self.paged else self.params

    def refuse_undeclared(self, method: str, params: Iterable[str] = ()) -> None:
        """`UndeclaredRequest` when `method` is not this endpoint's or a parameter is not declared."""
        if method.upper() != self.method:
            raise UndeclaredRequest(f"{method.upper()} {self.template}: the catalogue declares "
                                    f"{self.name or self.template} as {self.method}")
        extra = sorted(set(params) - self.accepted)
        if extra:
            raise UndeclaredRequest(f"{self.method} {self.template}: query parameter(s) {', '.join(extra)} "
                                    f"not declared in the catalogue for {self.name or 'it'} (declared: "
                                    f"{', '.join(sorted(self.accepted)) or 'none'})")

    def families(self, *args: object, **kwargs: object) -> tuple[str, ...]:
        """The cached list paths a change through this endpoint empties, for these values."""
        values = self._values(args, kwargs)
        kinds = dict(self.segments)
        encoded = {k: _segment_value(k, kinds[k], v) for k, v in values.items()}
        return tuple(_fill(t, encoded) for t in (self.family or self.template, *self.also))

    def match(self, path: str) -> dict[str, str] | None:
        """The decoded segment values when `path` (relative to `/api/v4`, as sent) is this template."""
        found = self._pattern.fullmatch(path)
        return None if found is None else {k: unquote(v) for k, v in found.groupdict().items()}


def _fill(template: str, encoded: dict[str, str]) -> str:
    def one(m: re.Match[str]) -> str:
        if m.group(1) not in encoded:
            raise KeyError(f"{template}: no value for {m.group(1)}")
        return encoded[m.group(1)]
    return _PLACEHOLDER.sub(one, template)


def clean_path(path: str) -> str:
    """A request path as the journal and the catalogue read it: no query, one leading slash, no trailing."""
    return "/" + path.split("?", 1)[0].strip("/")


def find(endpoints: tuple[Endpoint, ...], method: str, path: str) -> tuple[Endpoint, dict[str, str]] | None:
    """The most specific endpoint of `endpoints` that `method path` is, with its decoded values."""
    method, path = method.upper(), clean_path(path)
    best: tuple[Endpoint, dict[str, str]] | None = None
    for endpoint in endpoints:
        if endpoint.method != method:
            continue
        values = endpoint.match(path)
        if values is not None and (best is None or endpoint.literal_length > best[0].literal_length):
            best = endpoint, values
    return best
