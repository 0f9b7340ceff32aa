"""The names a vendor's chat shapes may extend, and the check of its arguments against them.

One list each of the dialect's message roles, content part types and tool call types, read by
`openai_chat_types` (which builds its tables in this order) and by `lazy_shapes` (which checks a
vendor's arguments when its request class is defined, before anything is built), so the two
cannot disagree. A module of its own: `lazy_shapes` imports the builder when first read, and the
builder may not import `lazy_shapes` back (no import cycles in core).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SHAPE_PART_TYPES", "SHAPE_ROLES", "SHAPE_TOOL_CALL_TYPES", "check_shape_keys"]

SHAPE_ROLES = ("system", "developer", "user", "assistant", "tool", "function")
"""The message roles of the dialect, which `roles=` may extend."""

SHAPE_PART_TYPES = ("text", "image_url", "input_audio", "file", "refusal")
"""The content part types of the dialect, which `parts=` may extend."""

SHAPE_TOOL_CALL_TYPES = ("function", "custom")
"""The tool call types of an assistant message, which `tool_calls=` may extend."""


def _known(spec: Mapping[str, Any] | None, known: Sequence[str], what: str) -> None:
    for key in spec or ():
        if key not in known:
            raise ValueError(f"unknown {what} {key!r}; expected one of {', '.join(known)}")


def check_shape_keys(
    roles: Mapping[str, Any] | None,
    parts: Mapping[str, Any] | None,
    user_parts: Mapping[str, Any] | None,
    tool_calls: Mapping[str, Any] | None,
) -> None:
    """Refuse what `openai_chat_shapes` would refuse about its arguments' keys.

    Raises:
        ValueError: an unknown role, content part type or tool call type, or a `user_parts`
            type the dialect types already (extend it with `parts=`).
    """
    _known(roles, SHAPE_ROLES, "role")
    _known(parts, SHAPE_PART_TYPES, "content part type")
    _known(tool_calls, SHAPE_TOOL_CALL_TYPES, "tool call type")
    for kind in user_parts or ():
        if kind in SHAPE_PART_TYPES:
            raise ValueError(f"content part type {kind!r} is typed already; extend it with parts=")
