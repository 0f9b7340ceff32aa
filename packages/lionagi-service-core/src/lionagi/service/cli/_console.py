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

    if sys.stdout.isatty():
        return Console(soft_wrap=True)
    return Console(soft_wrap=True, width=_UNBOUNDED, color_system=None)
