"""A pydantic validation failure as the field and message of one of the library's typed errors.

Every place that validates with pydantic (endpoint config, request models, agentic requests and
settings) reports the first failure the same way: its dotted location names the field, and the
message is pydantic's without the input value (the value may be a secret or a prompt). pydantic
prefixes the text of a validator's own ``ValueError`` with ``"Value error, "``; the prefix is
pydantic's wording, not ours, so it is dropped (``base_url: must be an absolute http:// ...``).
"""

from __future__ import annotations

from pydantic import ValidationError

__all__ = ["first_error"]

_PREFIXES = ("Value error, ", "Assertion failed, ")


def first_error(exc: ValidationError, default_field: str) -> tuple[str, str]:
    """The first error's dotted location (``default_field`` when it has none) and message."""
    first = exc.errors(include_input=False, include_url=False, include_context=False)[0]
    field = ".".join(str(part) for part in first["loc"]) or default_field
    message = first["msg"]
    for prefix in _PREFIXES:
        if message.startswith(prefix):
            message = message[len(prefix) :]
            break
    return field, message
