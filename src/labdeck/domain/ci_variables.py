"""CI/CD variable rules (contract document 2, "CI variable"): key length and alphabet, the instance-level
value limit, the masked-value requirements and the variable types. The sandbox enforces them and the TUI
forms check them before sending, with the same messages GitLab gives."""

from __future__ import annotations

import re
from typing import Final

KEY_MAX: Final = 255
INSTANCE_VALUE_MAX: Final = 10_000
VARIABLE_TYPES: Final = ("env_var", "file")
DEFAULT_SCOPE: Final = "*"
# GitLab's default `ci_instance_level_variables` plan limit.
DEFAULT_INSTANCE_LIMIT: Final = 25

_KEY = re.compile(r"^[A-Za-z0-9_]+$")
# Masked values: one line, at least 8 characters of the Base64 alphabet (RFC 4648, both forms) and @ : . ~
_MASKABLE = re.compile(r"^[A-Za-z0-9_+=/@:.~-]{8,}$")

KEY_ALPHABET_ERROR: Final = "can contain only letters, digits and '_'."
KEY_LENGTH_ERROR: Final = f"is too long (maximum is {KEY_MAX} characters)"
KEY_BLANK_ERROR: Final = "can't be blank"
MASK_ERROR: Final = "is invalid"


def key_errors(key: str) -> list[str]:
    """What is wrong with a variable key (empty list when it is valid)."""
    if key == "":
        return [KEY_BLANK_ERROR]
    errors = []
    if len(key) > KEY_MAX:
        errors.append(KEY_LENGTH_ERROR)
    if not _KEY.match(key):
        errors.append(KEY_ALPHABET_ERROR)
    return errors


def instance_value_error(value: str) -> str | None:
    """The message for an instance-level value over the limit, else None."""
    if len(value) > INSTANCE_VALUE_MAX:
        return f"The value of the provided variable exceeds the {INSTANCE_VALUE_MAX} character limit"
    return None


def can_mask(value: str) -> bool:
    """True when `value` meets the requirements of a masked variable."""
    return bool(_MASKABLE.match(value))


def variable_errors(key: str, value: str, *, masked: bool = False,
                    instance: bool = False) -> dict[str, list[str]]:
    """Field errors of a variable, shaped like GitLab's validation body (`{"key": [...]}`)."""
    errors: dict[str, list[str]] = {}
    problems = key_errors(key)
    if problems:
        errors["key"] = problems
    value_problems = []
    if instance:
        too_long = instance_value_error(value)
        if too_long:
            value_problems.append(too_long)
    if masked and not can_mask(value):
        value_problems.append(MASK_ERROR)
    if value_problems:
        errors["value"] = value_problems
    return errors


def limit_error(limit: int) -> str:
    """The message when the instance already holds `limit` variables."""
    return f"Maximum number of ci instance level variables ({limit}) exceeded"
