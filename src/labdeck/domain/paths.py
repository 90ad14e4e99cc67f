"""The one encoder of URL path segments, and the check that a path names what it was built to name.

Every piece of server or user text that labdeck puts into a URL path (an id or full path, a tag, an
environment, a wiki slug, a label, a domain, a variable key) goes through `segment()`. It percent-encodes
everything but RFC 3986's unreserved characters, so `/`, `?`, `#` and `%` never reach the path raw, and it
encodes the dot segments `.` and `..` as `%2E` and `%2E%2E`, as GitLab's own clients do: an HTTP library
resolves a literal `..` (`.../protected_environments/..` becomes `/projects/:id`), which once turned "replace
this protection" into `DELETE /projects/:id`.

`dot_segment_free()` is the client's last guard: a path whose segments, as sent, differ from the segments
it was asked for (a dot segment collapsed on the way) is refused before anything leaves.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

DOT_SEGMENTS = {".": "%2E", "..": "%2E%2E"}


def segment(value: object) -> str:
    """`value` (an id, a full path, a name) encoded as exactly one path segment."""
    text = str(value)
    return DOT_SEGMENTS.get(text) or quote(text, safe="")


def decoded_segments(path: str) -> list[str]:
    """The segments of a raw URL path, each percent-decoded (the resource names the server will read)."""
    return [unquote(part) for part in path.split("/")]


def has_dot_segment(path: str) -> bool:
    """True when `path` (raw, before any resolution) holds a literal `.` or `..` segment, which an HTTP
    library would resolve away."""
    return any(part in DOT_SEGMENTS for part in path.split("/"))


def same_resource(asked: str, sent: str) -> bool:
    """True when the raw path `sent` (as it leaves) names the same segments as the raw path `asked` (as it
    was built): percent-encoding may differ (a space becomes `%20`), the resource named may not."""
    return decoded_segments(asked) == decoded_segments(sent)
