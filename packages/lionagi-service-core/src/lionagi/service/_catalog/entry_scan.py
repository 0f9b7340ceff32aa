"""One entry-point group read straight from the ``*.dist-info`` directories on ``sys.path``.

Why: ``importlib.metadata.entry_points(group=...)`` builds a ``Distribution`` for every installed
distribution, reads and parses every ``entry_points.txt`` through ``pathlib`` and normalizes
every name, then filters to one group. With a few hundred distributions that is most of a
catalog build (and ``importlib.metadata``'s own import adds more), although only the handful of
files that mention ``[lionagi.providers]`` matter.

:func:`scan_group` does the same walk with plain ``os.listdir`` and ``open``: ``sys.path`` in
order, each directory's ``*.dist-info`` / ``*.egg-info`` children in ``os.listdir`` order, the
first distribution of each normalized name shadowing later ones (``importlib.metadata``'s
``_unique``), ``entry_points.txt`` parsed with the same rules (stripped lines, ``#`` comments,
``[section]`` headers, ``name = value`` split on the first ``=``). Only files whose text contains
the group header are parsed, and only their distribution's ``METADATA`` is read for its name.

Exactness over speed: whenever the layout holds something this walk does not model, it returns
``None`` and the caller asks ``importlib.metadata`` instead. That is the case for a ``sys.path``
entry that exists but is not a directory (a zip or egg file), an ``*.egg`` directory, a metadata
directory whose suffix is not spelled in lower case, and a ``sys.meta_path`` finder other than
the standard ``PathFinder`` that can discover distributions. Editable installs and ``.pth``
paths need no special case: their metadata is a ``*.dist-info`` (or ``*.egg-info``) directory
in a ``sys.path`` entry like any other.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from importlib.machinery import PathFinder

__all__ = ["ScannedEntryPoint", "scan_group", "scan_groups"]

ScannedEntryPoint = tuple[str, str, str | None]
"""``(name, value, distribution Name or None)`` of one entry point."""

_SUFFIXES = (".dist-info", ".egg-info")
_UNREADABLE = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)
_SEPARATORS = re.compile(r"[-_.]+")


def scan_group(group: str) -> list[ScannedEntryPoint] | None:
    """Every entry point of ``group`` installed on ``sys.path``, or None to defer to importlib.

    Raises whatever reading an ``entry_points.txt`` raises apart from the missing/unreadable
    cases ``importlib.metadata`` also treats as "no file" (e.g. a ``UnicodeDecodeError``), so a
    corrupt installation fails the same way on both paths.
    """
    groups = scan_groups((group,))
    return None if groups is None else groups[group]


def scan_groups(groups: Sequence[str]) -> dict[str, list[ScannedEntryPoint]] | None:
    """:func:`scan_group` for several groups in one walk (each file is read once).

    None when the layout is one this walk does not model, for all groups at once.
    """
    if not _standard_finders():
        return None
    needles = [(group, f"[{group}]".encode()) for group in groups]
    seen: set[str] = set()
    found: dict[str, list[ScannedEntryPoint]] = {group: [] for group in groups}
    for entry in list(sys.path):
        root = entry or "."
        try:
            children = os.listdir(root)
        except OSError:
            if os.path.exists(root):
                return None  # a zip or egg file: importlib reads it through zipfile
            continue
        if os.path.basename(root).lower().endswith(".egg"):
            return None
        for child in children:
            low = child.lower()
            if not low.endswith(_SUFFIXES):
                continue
            if not child.endswith(_SUFFIXES):
                return None  # importlib names this one from its METADATA, not its stem
            key = _normalize(low.rpartition(".")[0].partition("-")[0])
            if key in seen:
                continue
            seen.add(key)
            path = os.path.join(root, child)
            text, mentioned = _read_if_mentions(os.path.join(path, "entry_points.txt"), needles)
            dist: str | None = None
            for group in mentioned:
                pairs = _section_pairs(text, group)
                if pairs is None:
                    return None  # a line importlib rejects: let it raise its own error
                if pairs:
                    if dist is None:
                        dist = _distribution_name(path)
                    found[group].extend((name, value, dist) for name, value in pairs)
    return found


def _standard_finders() -> bool:
    """True when only the standard ``PathFinder`` can discover distributions."""
    return all(
        finder is PathFinder or getattr(finder, "find_distributions", None) is None
        for finder in sys.meta_path
    )


def _normalize(name: str) -> str:
    """PEP 503 normalization with underscores, as ``importlib.metadata.Prepared.normalize``."""
    return _SEPARATORS.sub("-", name).lower().replace("-", "_")


def _read_if_mentions(path: str, needles: Sequence[tuple[str, bytes]]) -> tuple[str, list[str]]:
    """The file's text and the groups whose ``[header]`` bytes it contains (``("", [])``: none).

    Bytes first: most installed distributions' files never mention a group, and skipping the
    text decoder for those is a third of the scan's cost. A file that does is decoded as UTF-8
    from the same bytes (text mode's newline translation does not matter: the parser splits with
    ``splitlines``, which treats CRLF, CR and LF alike), so a decoding error still
    surfaces. A missing or unreadable file mentions nothing.
    """
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except _UNREADABLE:
        return "", []
    mentioned = [group for group, needle in needles if needle in data]
    if not mentioned:
        if not data.isascii():
            data.decode("utf-8")  # raises as importlib's text read of the same file would
        return "", []
    return data.decode("utf-8"), mentioned


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return handle.read()
    except _UNREADABLE:
        return None


def _section_pairs(text: str, group: str) -> list[tuple[str, str]] | None:
    """``(name, value)`` of every line in ``[group]``, by ``importlib.metadata``'s rules.

    None for a line without ``=``, which ``importlib.metadata`` refuses (``TypeError``).
    """
    section: str | None = None
    pairs: list[tuple[str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line.strip("[]")
            continue
        if section == group:
            name, sep, value = line.partition("=")
            if not sep:
                return None
            pairs.append((name.strip(), value.strip()))
    return pairs


def _distribution_name(path: str) -> str | None:
    """The ``Name`` header of the distribution's metadata (``METADATA``, else ``PKG-INFO``)."""
    for filename in ("METADATA", "PKG-INFO"):
        text = _read(os.path.join(path, filename))
        if not text:
            continue  # importlib also moves on from an empty METADATA
        for line in text.splitlines():
            if not line.strip():
                break  # end of the header block
            field, sep, value = line.partition(":")
            if sep and field.strip().lower() == "name":
                return value.strip() or None
        return None
    return None
