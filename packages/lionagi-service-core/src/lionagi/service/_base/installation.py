"""Refuse to run on an environment where the published ``lionagi`` shares the ``lionagi`` folder.

lionagi-service-core ships ``lionagi/service`` inside the PEP 420 namespace ``lionagi``. The
published ``lionagi`` distribution (0.x) ships ``lionagi/__init__.py`` and its own
``lionagi/service/__init__.py``, so installing both makes pip overwrite one distribution's
``lionagi/service/__init__.py`` with the other's without a warning, and uninstalling ``lionagi``
afterwards deletes the file core needs while ``pip check`` stays clean. Either way the process
would run a mixture of two unrelated codebases. This module detects the two states that mixture
leaves behind and raises one :class:`InstallationConflictError` that names both distributions
and the repair, instead of the confusing import or attribute errors that would follow.

The check reads two module attributes already in :data:`sys.modules`: it costs nothing at
import time and touches no metadata unless it is about to raise.

A ``lionagi/__init__.py`` need not be the published ``lionagi``'s: a provider wheel built with a
tool that adds ``__init__.py`` files to every directory ships one too, and a ``lionagi`` source
tree on ``sys.path`` (the current directory) has one that nothing installed. So, about to raise,
the check asks :mod:`importlib.metadata` which installed distribution lists that very file in its
``RECORD`` and names it with the repair that fits: today's text for ``lionagi``; for any other
owner, that it ships a file the namespace must not have and should be fixed or uninstalled; for
no owner, the file's path. Uninstalling ``lionagi`` and core would leave another owner's file in
place and remove core.

One state is invisible from here: ``lionagi`` installed *after* core leaves lionagi's
``lionagi/service/__init__.py`` where core's was, so none of core's modules runs on a plain
``from lionagi.service import iModel``. Core's wheel therefore also installs a start-up guard
(``_lionagi_service_guard``, loaded by a ``.pth`` line) whose finder notices that file and
imports this layer instead, so the same error is raised there too.
"""

from __future__ import annotations

import os
import sys

from .errors import InstallationConflictError

__all__ = ["CORE_DISTRIBUTION", "LEGACY_DISTRIBUTION", "check_installation", "report_foreign_init"]

CORE_DISTRIBUTION = "lionagi-service-core"
LEGACY_DISTRIBUTION = "lionagi"
_GUIDE = "docs/migrating-from-lionagi.md in the lionagi-service repository"


def _legacy_version() -> str:
    from importlib import metadata  # only on the error path

    try:
        return f" {metadata.version(LEGACY_DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return ""


def _owners(path: str) -> list[str]:
    """Installed distributions whose ``RECORD`` lists ``path`` as their ``lionagi/__init__.py``.

    Error path only: it reads every distribution's file list. An editable install or a source
    tree lists no such file, so the answer can be empty.
    """
    from importlib import metadata  # only on the error path

    try:
        target = os.path.realpath(path)
    except (OSError, ValueError):
        return []
    found: set[str] = set()
    for dist in metadata.distributions():
        try:
            files = dist.files or ()
            for file in files:
                if file.parts[-2:] != ("lionagi", "__init__.py"):
                    continue
                if os.path.realpath(str(dist.locate_file(file))) == target:
                    name: object = dist.name  # None when the metadata has no Name
                    if isinstance(name, str) and name:
                        found.add(name)
        except Exception:  # one distribution's unreadable metadata must not hide the others
            continue
    return sorted(found)


def _namespace_conflict(path: str) -> InstallationConflictError:
    """The error for a ``lionagi/__init__.py`` at ``path``, naming whoever installed it."""
    owners = _owners(path)
    if LEGACY_DISTRIBUTION in owners:
        return InstallationConflictError(
            f"the '{LEGACY_DISTRIBUTION}'{_legacy_version()} distribution is installed in the "
            f"same environment as '{CORE_DISTRIBUTION}': it ships {path} and its "
            f"own lionagi/service, and the two overwrite each other's files. Fix: use separate "
            f"virtual environments, or run 'pip uninstall -y {LEGACY_DISTRIBUTION} "
            f"{CORE_DISTRIBUTION}' then 'pip install {CORE_DISTRIBUTION}' (see {_GUIDE})",
            distribution=LEGACY_DISTRIBUTION,
        )
    namespace = (
        f"the PEP 420 namespace 'lionagi' must not have: '{CORE_DISTRIBUTION}' and every "
        "lionagi-provider-* distribution share it, and an __init__.py makes it a regular package"
    )
    if owners:
        named = " and ".join(f"'{name}'" for name in owners)
        return InstallationConflictError(
            f"{named} (not the published '{LEGACY_DISTRIBUTION}') installed {path}, a file "
            f"{namespace}. That package is built wrongly: its wheel must leave out "
            f"lionagi/__init__.py and lionagi/providers/__init__.py. Fix: "
            f"run 'pip uninstall -y {' '.join(owners)}' (that removes the file; "
            f"'{CORE_DISTRIBUTION}' needs no reinstall), and install a release of it built "
            f"without that file (or have its author fix it)",
            distribution=owners[0],
        )
    legacy = _legacy_version()
    installed = (
        f"; the '{LEGACY_DISTRIBUTION}'{legacy} distribution is installed, perhaps in editable "
        f"mode from that directory (then run 'pip uninstall -y {LEGACY_DISTRIBUTION} "
        f"{CORE_DISTRIBUTION}' then 'pip install {CORE_DISTRIBUTION}', see {_GUIDE})"
        if legacy
        else ""
    )
    return InstallationConflictError(
        f"no installed distribution claims {path}, a file {namespace}. It is a leftover of an "
        f"uninstalled package, or a 'lionagi' source "
        f"directory on sys.path (the current directory, PYTHONPATH). Fix: delete or move that "
        f"file, or run from another directory / take that directory off PYTHONPATH{installed}",
        distribution=LEGACY_DISTRIBUTION if legacy else "",
    )


def check_installation() -> None:
    """Raise :class:`InstallationConflictError` when core's ``lionagi`` files are not intact."""
    namespace = sys.modules.get("lionagi")
    path = getattr(namespace, "__file__", None) if namespace is not None else None
    if path is not None:
        raise _namespace_conflict(str(path))
    package = sys.modules.get("lionagi.service")
    if package is not None and getattr(package, "__file__", None) is None:
        raise InstallationConflictError(
            f"'{CORE_DISTRIBUTION}' is damaged: its lionagi/service/__init__.py is missing, "
            f"which is what uninstalling the '{LEGACY_DISTRIBUTION}' distribution does after it "
            f"was installed in the same environment (pip check does not notice). Fix: "
            f"'pip install --force-reinstall --no-deps {CORE_DISTRIBUTION}' (see {_GUIDE})",
            distribution=LEGACY_DISTRIBUTION,
        )


def report_foreign_init(origin: str | None) -> None:
    """Raise for another distribution's ``lionagi/service/__init__.py`` standing in core's place.

    The start-up guard calls this when :func:`check_installation` found nothing to object to,
    which happens when the foreign file came without a ``lionagi/__init__.py`` of its own.
    """
    raise InstallationConflictError(
        f"{origin or 'lionagi/service/__init__.py'} is not {CORE_DISTRIBUTION}'s file: another "
        f"distribution (such as '{LEGACY_DISTRIBUTION}'{_legacy_version()}) installed its own "
        f"lionagi/service over it. Fix: use separate virtual environments, or run 'pip "
        f"uninstall -y {LEGACY_DISTRIBUTION} {CORE_DISTRIBUTION}' then 'pip install "
        f"{CORE_DISTRIBUTION}' (see {_GUIDE})",
        distribution=LEGACY_DISTRIBUTION,
    )
