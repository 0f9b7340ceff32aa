"""The "did you mean" every refusal of a misspelled name ends with, worded once.

A request field, a nested key, a handler, a runtime argument or a request default spelled
wrong is refused naming the closest accepted name, so the caller fixes it in one step. The
refusals live in several layers (payload, agentic request, catalog defaults, chat shapes,
iModel's arguments, the endpoint configuration); they share this one search so they pick
alike. ``difflib`` is imported only when a suggestion is asked for: refusals are the error
path, and a first call never pays for it.

The closeness bar is each caller's: the default (``difflib``'s 0.6) suits a closed list of
field names, and a caller whose list is open-ended (every iModel argument against any config
field) raises it, because a wrong suggestion is worse than none.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["DEFAULT_CUTOFF", "close_names", "closest", "did_you_mean"]

DEFAULT_CUTOFF = 0.6
"""``difflib``'s own bar: the similarity ratio a name needs to be suggested at all."""


def close_names(
    word: object, names: Iterable[str], *, n: int = 1, cutoff: float = DEFAULT_CUTOFF
) -> list[str]:
    """Up to `n` accepted names spelled like `word` (similarity at least `cutoff`), closest first.

    A `word` that is no string has no spelling to compare: none.
    """
    if not isinstance(word, str):
        return []
    import difflib

    return difflib.get_close_matches(word, sorted(names), n=n, cutoff=cutoff)


def closest(word: object, names: Iterable[str], *, cutoff: float = DEFAULT_CUTOFF) -> str | None:
    """The accepted name closest to `word` (similarity at least `cutoff`), else None.

    For a refusal worded its own way (`" (did you mean 'x'?)"`); :func:`did_you_mean` is the
    usual ending.
    """
    close = close_names(word, names, cutoff=cutoff)
    return close[0] if close else None


def did_you_mean(word: object, names: Iterable[str], *, cutoff: float = DEFAULT_CUTOFF) -> str:
    """`"; did you mean 'name'?"` for the accepted name closest to `word`, else `""`.

    Public for adapter authors (`lionagi.service.http`), so a vendor's own refusal of a
    misspelled key reads like core's.
    """
    near = closest(word, names, cutoff=cutoff)
    return f"; did you mean {near!r}?" if near is not None else ""
