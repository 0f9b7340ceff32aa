"""What an unknown spelling may have meant when some installed provider failed to import.

Error path only: imported lazily by :mod:`.match` and :mod:`.model_parse` (never at
``import lionagi.service``, never on a successful lookup).

Why. A provider's aliases and model aliases live in its module; when that module fails to import,
the snapshot knows the inventory key (``claude_code``) but none of its other spellings
(``claude-code``, ``claude``). Without this, selecting a broken provider by an alias said
"unknown provider" or "not a model alias", and even told the user to rename a correct entry point:
the import error, the real cause, was invisible (ADR-0028 D3: inspection must distinguish "not
registered" from "registered package unavailable"). Two things are said, and nothing guessed:

* :func:`unavailable_owner`: the spelling ``s`` is the distribution ``lionagi-provider-<s>``
  (the layout the provider guide prescribes), and that distribution declares exactly one key the
  snapshot holds as unavailable. Then ``s`` meant that key, and its :class:`ProviderUnavailable`
  is raised. The mapping comes from the inventory rows' distribution names, or, for rows built by
  hand without one, the installed distribution's entry points; a bare alias such as ``claude``
  maps to no distribution and is never attributed.
* :func:`unavailable_note`: every other unknown-provider or not-an-alias error lists the
  unavailable providers with their (already redacted) import diagnostics, so the cause shows.
"""

from __future__ import annotations

import re
from importlib import metadata

from .._base.errors import ProviderUnavailable
from .._base.secrets import bounded
from .discovery import ENTRY_POINT_GROUP
from .keys import canonical_provider_key
from .snapshot import CatalogSnapshot

__all__ = ["declared_keys", "unavailable_error", "unavailable_note", "unavailable_owner"]

_DIST_SPELLING = re.compile(r"[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?")
_NOTE_LIMIT = 5
_CAUSE_LIMIT = 200


def _normalized(name: str) -> str:
    """PEP 503 normalization: how installers compare distribution names."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_keys(provider: str) -> tuple[str, tuple[str, ...]] | None:
    """The installed ``lionagi-provider-<provider>``'s name and declared entry-point keys.

    None when ``provider`` cannot be part of a distribution name, no such distribution is
    installed, or its metadata is unreadable (nothing reliable to say then).
    """
    if not _DIST_SPELLING.fullmatch(provider):
        return None
    try:
        dist = metadata.distribution(f"lionagi-provider-{provider}")
        declared = sorted({ep.name for ep in dist.entry_points if ep.group == ENTRY_POINT_GROUP})
        name = dist.name or f"lionagi-provider-{provider}"
    except Exception:  # not installed, or unreadable metadata
        return None
    return name, tuple(declared)


def unavailable_owner(snapshot: CatalogSnapshot, provider: str) -> ProviderUnavailable | None:
    """The ``ProviderUnavailable`` of the one unavailable key ``provider``'s distribution declares.

    ``provider`` is canonical and not itself a key of ``snapshot``. None when the snapshot has no
    unavailable provider, or the distribution metadata names none, or names several (that would
    be a guess between them).
    """
    if not snapshot.unavailable or not _DIST_SPELLING.fullmatch(provider):
        return None
    wanted = _normalized(f"lionagi-provider-{provider}")
    keys = {
        canonical_provider_key(row.provider)
        for row in snapshot.inventory
        if row.distribution is not None and _normalized(row.distribution) == wanted
    }
    if not keys:  # rows built without a distribution: ask the installed metadata
        found = declared_keys(provider)
        keys = {canonical_provider_key(key) for key in found[1]} if found else set()
    broken = sorted(key for key in keys if key in snapshot.unavailable)
    if len(broken) != 1:
        return None
    return ProviderUnavailable(broken[0], snapshot.unavailable[broken[0]])


def unavailable_error(snapshot: CatalogSnapshot, key: str) -> ProviderUnavailable | None:
    """The import error behind ``key`` (canonical, not in the snapshot's index), or None.

    Either ``key`` is itself an installed provider that failed to import, or it is the
    distribution spelling of exactly one such provider (:func:`unavailable_owner`). The
    resolver and the command line both ask this before saying "not installed".
    """
    diagnostic = snapshot.unavailable.get(key)
    if diagnostic is not None:
        return ProviderUnavailable(key, diagnostic)
    return unavailable_owner(snapshot, key)


def unavailable_note(snapshot: CatalogSnapshot) -> str:
    """``"; unavailable (...): key (cause), ..."``, or ``""`` when every provider imported.

    Appended to an unknown-provider or not-an-alias message: the spelling may be an alias of a
    provider whose module (where its aliases live) did not import. Diagnostics are redacted when
    built; each is bounded here so a list stays readable.
    """
    if not snapshot.unavailable:
        return ""
    keys = sorted(snapshot.unavailable)
    shown = [
        f"{key} ({bounded(snapshot.unavailable[key].message, _CAUSE_LIMIT)})"
        for key in keys[:_NOTE_LIMIT]
    ]
    if len(keys) > _NOTE_LIMIT:
        shown.append(f"... ({len(keys) - _NOTE_LIMIT} more)")
    return (
        "; unavailable (installed but failed to import, so their aliases are unknown): "
        + ", ".join(shown)
    )
