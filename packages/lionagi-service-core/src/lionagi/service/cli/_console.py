"""The rich console the table commands (``providers``, ``models``, ``doctor``) print with.

On a terminal rich fits tables to its width. Piped or redirected output has no width: rich
would assume 80 columns and fold every long cell mid-word, so a ``grep`` for a package name or
a fix misses. There the console is as wide as the content needs (one row, one line per cell
line) and prints no escape codes.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["table_console"]

_UNBOUNDED = 10_000
"""Columns for a non-terminal: wide enough that no real cell folds, small enough to lay out."""


def table_console() -> Console:
    """A console that wraps tables only when a person is looking at a terminal."""
    from rich.console import Console

    class _TableConsole(Console):
        def on_broken_pipe(self) -> None:
            """Raise the broken pipe to the command line's own handler (quiet, exit 0).

            rich's default exits 1 here, so ``providers | head -1`` failed a ``pipefail``
            script while ``providers --json | head -1`` and ``demo | head -1`` exited 0.
            """
            self.quiet = True
            raise BrokenPipeError

    if sys.stdout.isatty():
        return _TableConsole(soft_wrap=True)
    return _TableConsole(soft_wrap=True, width=_UNBOUNDED, color_system=None)
