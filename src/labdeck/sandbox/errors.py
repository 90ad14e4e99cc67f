"""Error responses of the sandbox, in GitLab's shapes. Raise a `SandboxError` from any route; the endpoint
wrapper every route has turns it into the response."""

from __future__ import annotations

from typing import Any


class SandboxError(Exception):
    """An HTTP error with a JSON body (`{"message": ...}`, `{"error": ...}` or any other shape)."""

    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        super().__init__(status)
        self.status = status
        self.body = body
        self.headers = headers or {}

    @classmethod
    def message(cls, status: int, message: Any) -> SandboxError:
        return cls(status, {"message": message})

    @classmethod
    def not_found(cls, what: str | None = None) -> SandboxError:
        """`404 Project Not Found`, or `404 Not Found` with no resource name."""
        return cls(404, {"message": f"404 {what} Not Found" if what else "404 Not Found"})

    @classmethod
    def forbidden(cls, reason: str | None = None) -> SandboxError:
        return cls(403, {"message": f"403 Forbidden - {reason}" if reason else "403 Forbidden"})

    @classmethod
    def unauthorized(cls) -> SandboxError:
        return cls(401, {"message": "401 Unauthorized"})

    @classmethod
    def missing(cls, *names: str) -> SandboxError:
        """Grape's shape for absent required parameters: `{"error": "title is missing"}`."""
        return cls(400, {"error": ", ".join(f"{n} is missing" for n in names)})

    @classmethod
    def invalid(cls, name: str) -> SandboxError:
        return cls(400, {"error": f"{name} is invalid"})

    @classmethod
    def bad_value(cls, name: str) -> SandboxError:
        return cls(400, {"error": f"{name} does not have a valid value"})

    @classmethod
    def validation(cls, field_errors: dict[str, list[str]]) -> SandboxError:
        """A model validation failure: `{"message": {"name": ["has already been taken"]}}` (400)."""
        return cls(400, {"message": field_errors})
