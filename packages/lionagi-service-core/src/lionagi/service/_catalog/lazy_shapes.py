"""A vendor's chat shapes, checked when its request class is defined, built on first read.

Why. A vendor that documents more message or content-part fields sets its request class's
`shapes` to `openai_chat_shapes(...)`. Calling that at class definition imports core's
nested-shapes module and builds the vendor's models on the first use of the vendor's row, while
core reads `shapes` only for a request with more than plain-text messages: a plain chat call
paid ≈ 10 ms of CPU for models it never used (issue 15's cold first call). `lazy_chat_shapes`
takes the same arguments, refuses the same mistakes at once (an unknown role, content part type
or tool call type; a new user part type that exists already), and builds the model when the
attribute is first read.

The names it checks against are declared once, in `shape_keys`, which the builder reads too.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from .shape_keys import check_shape_keys

__all__ = ["lazy_chat_shapes"]


class _LazyShapes:
    """The descriptor `lazy_chat_shapes` returns: the model, built on first read and kept."""

    __slots__ = ("_args", "_built", "_lock")

    def __init__(self, args: dict[str, Any]) -> None:
        self._args = args
        self._built: type[BaseModel] | None = None
        self._lock = threading.Lock()

    def __get__(self, instance: object, owner: type | None = None) -> type[BaseModel]:
        built = self._built
        if built is None:
            with self._lock:
                if self._built is None:
                    from .openai_chat_types import openai_chat_shapes

                    self._built = openai_chat_shapes(**self._args)
                built = self._built
        return built


def lazy_chat_shapes(
    prefix: str = "OpenAIChat",
    *,
    roles: Mapping[str, Mapping[str, Any]] | None = None,
    parts: Mapping[str, Mapping[str, Any]] | None = None,
    user_parts: Mapping[str, type[BaseModel]] | None = None,
    tool_calls: Mapping[str, Mapping[str, Any]] | None = None,
) -> Any:
    """`openai_chat_shapes(...)` as a request class's `shapes`, built when first read.

    Takes `openai_chat_shapes`'s arguments and refuses the same key mistakes here, when the
    request class is defined; the model itself (and core's nested-shapes module) is built the
    first time core reads `shapes`, which it does only for a request with more than plain-text
    messages. Reading the attribute gives the model `openai_chat_shapes` returns (typed `Any`
    here so that a request class can assign it to its `shapes` class variable):

    ```python
    class AcmeChatRequest(OpenAIChatCompletionsRequest):
        shapes = lazy_chat_shapes("AcmeChat", roles={"assistant": {"prefix": StrictBool}})
    ```

    Raises:
        ValueError: an unknown role, content part type or tool call type, or a `user_parts`
            type the dialect types already.
    """
    check_shape_keys(roles, parts, user_parts, tool_calls)
    # Copied now, as `openai_chat_shapes` freezes them when called: a later change to the
    # caller's mappings must not change the model built on first read.
    args = {
        "prefix": prefix,
        "roles": _copy(roles),
        "parts": _copy(parts),
        "user_parts": dict(user_parts) if user_parts else None,
        "tool_calls": _copy(tool_calls),
    }
    return _LazyShapes(args)


def _copy(spec: Mapping[str, Mapping[str, Any]] | None) -> dict[str, dict[str, Any]] | None:
    return {key: dict(fields) for key, fields in spec.items()} if spec else None
