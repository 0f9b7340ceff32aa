"""pydantic's plugin lookup answered by the catalog's own metadata scan (cold start, issue 15).

The first time pydantic builds a validator it looks for plugins: ``importlib.metadata``'s
``entry_points(group="pydantic")``, which parses the metadata of every installed distribution
(≈ 5 ms with 120 distributions, and linear in their number). On the first call of a catalog
provider that lookup lands on the call's path, a few milliseconds after the catalog read the same
``entry_points.txt`` files for its own group. The catalog's scan therefore looks for the
``pydantic`` group on the way (:func:`record_scan`), and when none is declared the catalog fills
pydantic's plugin cache with the answer pydantic would have computed, an empty one
(:func:`answer_from_scan`), just before it builds its first config.

The answer is written only when it is exactly pydantic's: the scan modelled the layout (it
returns None otherwise, and nothing is recorded), ``sys.path`` is the one the scan walked, the
cache is still unset and no load is in progress. pydantic keeps its plugin cache for the life of
the process whoever fills it, so a plugin installed later was never picked up either way, and
``PYDANTIC_DISABLE_PLUGINS`` is read by pydantic before its cache, so it still wins. The cache
is a private name of ``pydantic.plugin._loader``; if it is missing or holds anything but None,
nothing is written and pydantic scans as it always did (see docs/decisions.md).
"""

from __future__ import annotations

import sys

__all__ = ["PYDANTIC_PLUGIN_GROUP", "answer_from_scan", "record_scan"]

PYDANTIC_PLUGIN_GROUP = "pydantic"
"""The entry-point group pydantic reads its plugins from."""

_none_declared_on: tuple[str, ...] | None = None  # sys.path of a scan that found no plugin


def record_scan(declared: bool | None) -> None:
    """Remember what a metadata scan of ``sys.path`` found for the ``pydantic`` group.

    ``declared`` is None when the scan could not tell (a layout it does not model).
    """
    global _none_declared_on
    _none_declared_on = tuple(sys.path) if declared is False else None


def answer_from_scan() -> bool:
    """Fill pydantic's plugin cache with "no plugins" when the last scan showed that is the answer.

    Returns True when the cache was filled here. Call it before a validator is built; after
    pydantic filled its cache itself, nothing changes.
    """
    global _none_declared_on
    walked, _none_declared_on = _none_declared_on, None
    if walked is None or walked != tuple(sys.path):
        return False
    from pydantic.plugin import _loader

    if getattr(_loader, "_plugins", False) is not None:
        return False  # filled already, or the private name is gone: pydantic decides
    if getattr(_loader, "_loading_plugins", True) is not False:
        return False
    if getattr(_loader, "PYDANTIC_ENTRY_POINT_GROUP", None) != PYDANTIC_PLUGIN_GROUP:
        return False
    _loader._plugins = {}
    return True
