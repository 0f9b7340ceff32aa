"""Find an agentic CLI's executable the way the child's exec would, before spawning it.

Resolution uses the PATH the *child* will receive, so a binary visible to the parent but absent
from the child's minimal environment is reported up front as
:class:`~lionagi.service._base.errors.ProviderExecutableNotFound` instead of failing inside exec.
Only successful lookups are cached (per binary and PATH): a CLI installed mid-session is found on
the next call, and a cached path that disappears is dropped when the spawn fails.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from ..._base.errors import ProviderExecutableNotFound

__all__ = ["discover_cli", "forget_executable", "require_executable", "resolve_executable"]

_CACHE: dict[tuple[str, str, str], str] = {}


def _default_hint(binary: str) -> str:
    return f"install {binary!r} and make sure its directory is on PATH"


def resolve_executable(
    binary: str, *, path: str | None = None, cwd: str | os.PathLike[str] | None = None
) -> str | None:
    """Return the absolute path exec would run for ``binary``, or None.

    Args:
        binary: A bare name searched on ``path``, or a path (containing a separator) checked
            directly; a relative path is taken relative to ``cwd`` as exec does.
        path: The child's PATH; None means this process's PATH (or ``os.defpath``).
        cwd: The child's working directory, for relative binary paths.
    """
    if not binary:
        return None
    search = os.environ.get("PATH", os.defpath) if path is None else path
    base = os.fspath(cwd) if cwd is not None else ""
    key = (binary, search, base)
    cached = _CACHE.get(key)
    if cached is not None:
        return cached
    if os.sep in binary or (os.altsep and os.altsep in binary):
        candidate = Path(binary)
        if not candidate.is_absolute() and base:
            candidate = Path(base) / candidate
        found = str(candidate.absolute()) if _is_executable(candidate) else None
    else:
        hit = shutil.which(binary, path=search)
        found = os.path.abspath(hit) if hit else None
    if found is not None:
        _CACHE[key] = found
    return found


def forget_executable(binary: str) -> None:
    """Drop cached lookups of ``binary`` (called when a cached path fails to spawn)."""
    for key in [k for k in _CACHE if k[0] == binary]:
        _CACHE.pop(key, None)


def require_executable(
    binary: str,
    *,
    install_hint: str = "",
    path: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
) -> str:
    """Like :func:`resolve_executable` but raise ProviderExecutableNotFound when missing."""
    found = resolve_executable(binary, path=path, cwd=cwd)
    if found is None:
        raise ProviderExecutableNotFound(binary, install_hint or _default_hint(binary))
    return found


def discover_cli(binary: str) -> tuple[bool, str | None]:
    """Availability probe for diagnostics: ``(found, absolute path or None)`` on this PATH."""
    found = resolve_executable(binary)
    return found is not None, found


def _is_executable(candidate: Path) -> bool:
    return candidate.is_file() and os.access(candidate, os.X_OK)
