"""`lionagi-service --version`: core's version, then every installed provider distribution's.

Why more than core's line: the command is core's, but what a bug report needs is which
adapters answered, and each ``lionagi-provider-*`` distribution is versioned and released on
its own. The list is read from the ``lionagi.providers`` entry points' distribution metadata
only, so no provider module is imported (a broken provider cannot break ``--version``), and it
is read when the flag is given, not while every other command builds its parser.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any, NoReturn

from ._exits import ParserOutput

__all__ = ["VersionAction", "version_text"]

_CORE = "lionagi-service-core"
_META = "lionagi-service"
_GROUP = "lionagi.providers"


def _installed(name: str) -> str | None:
    from importlib import metadata

    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def version_text() -> str:
    """Core's line, the ``lionagi-service`` meta distribution's if installed, then providers.

    Each provider line is ``<distribution> <version>: <provider names>``, sorted by
    distribution; core's own scripted provider is named on core's line.
    """
    # Imported here: every other command builds this parser, and the catalog's own scan avoids
    # importlib.metadata for its import cost (_catalog/entry_scan.py).
    from importlib import metadata

    names: dict[str, list[str]] = {}
    for entry in metadata.entry_points(group=_GROUP):
        dist = entry.dist
        label = f"{dist.name} {dist.version}" if dist is not None else "(distribution unknown)"
        names.setdefault(label, []).append(entry.name)
    core = _installed(_CORE)
    head = f"{_CORE} {core or 'unknown (not installed as a distribution)'}"
    own = sorted(names.pop(head, []))
    lines = [f"{head}: {', '.join(own)}" if own else head]
    meta = _installed(_META)
    if meta is not None:
        lines.append(f"{_META} {meta}")
    if not names:
        lines.append("no provider distributions installed (pip install lionagi-provider-<name>)")
    for label in sorted(names):
        lines.append(f"{label}: {', '.join(sorted(names[label]))}")
    return "\n".join(lines)


class VersionAction(argparse.Action):
    """`--version`: :func:`version_text` on stdout and exit 0, like argparse's own."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        kwargs.setdefault("help", "show core's and every installed provider's version and exit")
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> NoReturn:
        # Raised, not printed: ``_run`` writes it to stdout (as argparse's own version action
        # does) as the outcome, under the signal holds (see ``_exits``).
        raise ParserOutput(version_text() + "\n")
