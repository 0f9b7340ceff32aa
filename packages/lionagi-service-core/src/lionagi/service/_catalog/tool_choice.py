"""The rule every OpenAI-shaped request shares for ``tool_choice``: a forced tool must be offered.

Kept apart from the request models so an adapter can use it without importing them (the
catalog defers those, issue 15's cold start).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["unoffered_tool_choice"]


def unoffered_tool_choice(
    choice: Any,
    tools: list[Any] | None,
    *,
    forced: Callable[[Any], str | None],
    names: Callable[[list[Any]], list[str] | None],
) -> str | None:
    """Why `choice` forces a tool that `tools` does not offer, or None when it does not.

    The rule every OpenAI-shaped request shares (a sure 400 otherwise): `"required"` or a
    named function needs tools, and a named function must be among them. The dialect's grammar
    is passed in: `forced(choice)` reads the function name a choice forces (None for any other
    shape), `names(tools)` the function names the tools offer (None when some may not be
    listed there, which skips the name check).
    """
    name = forced(choice)
    if choice != "required" and name is None:
        return None
    if not tools:
        return "forces tool use, but the request offers no tools"
    offered = names(tools)
    if name is not None and offered is not None and name not in offered:
        listed = ", ".join(repr(n) for n in offered[:20]) or "none"
        return f"names no function tool of this request (functions: {listed})"
    return None
