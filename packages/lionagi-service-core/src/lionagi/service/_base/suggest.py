"""The "did you mean" every refusal of a misspelled name ends with, worded once.

A request field, a nested key, a handler, a runtime argument or a request default spelled
wrong is refused naming the closest accepted name, so the caller fixes it in one step. The
refusals live in several layers (payload, agentic request, catalog defaults, chat shapes);
they share this one suggestion so they read alike. ``difflib`` is imported only when a
suggestion is asked for: refusals are the error path, and a first call never pays for it.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(word: object, names: Iterable[str]) -> str:
    """`"; did you mean 'name'?"` for the accepted name closest to `word`, else `""`.

    Public for adapter authors (`lionagi.service.http`), so a vendor's own refusal of a
    misspelled key reads like core's.
    """
    if not isinstance(word, str):
        return ""
    import difflib

    close = difflib.get_close_matches(word, sorted(names), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""
