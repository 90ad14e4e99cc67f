"""CI/CD variable rules (GitLab's API docs, "CI variable", and GitLab's `Ci::Maskable`,
`Ci::HidableVariable`): key length and alphabet, the instance-level value limit, the masked-value
requirements (looser for a raw variable, whose value is never expanded), the description limit (255
characters), hidden variables (made with `masked_and_hidden` on create only; their value is never sent
back, and neither hidden nor masked can change afterwards) and the variable types. The sandbox enforces
them and the TUI forms check them before sending, with the same messages GitLab gives."""

from __future__ import annotations

import re
from typing import Final

KEY_MAX: Final = 255
INSTANCE_VALUE_MAX: Final = 10_000
VARIABLE_TYPES: Final = ("env_var", "file")
DEFAULT_SCOPE: Final = "*"
# GitLab's default `ci_instance_level_variables` plan limit.
DEFAULT_INSTANCE_LIMIT: Final = 25
DESCRIPTION_MAX: Final = 255

_KEY = re.compile(r"^[A-Za-z0-9_]+$")
# Masked values: one line, at least 8 characters of the Base64 alphabet (RFC 4648, both forms) and @ : . ~
_MASKABLE = re.compile(r"^[A-Za-z0-9_+=/@:.~-]{8,}$")
# Masked and raw (never expanded): one line, no spaces, at least 8 characters, any other character.
_MASKABLE_RAW = re.compile(r"^\S{8,}$")

KEY_ALPHABET_ERROR: Final = "can contain only letters, digits and '_'."
KEY_LENGTH_ERROR: Final = f"is too long (maximum is {KEY_MAX} characters)"
KEY_BLANK_ERROR: Final = "can't be blank"
MASK_ERROR: Final = "is invalid"
DESCRIPTION_LENGTH_ERROR: Final = f"is too long (maximum is {DESCRIPTION_MAX} characters)"
HIDDEN_NEEDS_MASKED: Final = "should be true when variable is hidden"
HIDDEN_ON_UPDATE: Final = "Only new variables can be set as masked and hidden."
HIDDEN_VISIBILITY: Final = "The visibility setting cannot be changed for masked and hidden variables."


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


def can_mask(value: str, *, raw: bool = False) -> bool:
    """True when `value` meets the requirements of a masked variable (a raw one allows more)."""
    return bool((_MASKABLE_RAW if raw else _MASKABLE).match(value))


def variable_errors(key: str, value: str, *, masked: bool = False, instance: bool = False,
                    raw: bool = False, description: str | None = None,
                    hidden: bool = False) -> dict[str, list[str]]:
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
    if masked and not can_mask(value, raw=raw):
        value_problems.append(MASK_ERROR)
    if value_problems:
        errors["value"] = value_problems
    if description is not None and len(description) > DESCRIPTION_MAX:
        errors["description"] = [DESCRIPTION_LENGTH_ERROR]
    if hidden and not masked:
        errors["masked"] = [HIDDEN_NEEDS_MASKED]
    return errors


def hidden_update_error(hidden: bool, masked_before: bool, masked_after: bool) -> str | None:
    """GitLab's `validate_masked_and_hidden_on_update`: a hidden variable cannot change its masking
    (the message of the `base` error), else None. Hiding an existing variable is impossible through the
    API (`masked_and_hidden` is a create parameter only)."""
    if hidden and masked_before != masked_after:
        return HIDDEN_VISIBILITY
    return None


def limit_error(limit: int) -> str:
    """The message when the instance already holds `limit` variables."""
    return f"Maximum number of ci instance level variables ({limit}) exceeded"
