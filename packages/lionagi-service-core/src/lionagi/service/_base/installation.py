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

One state is invisible from here: ``lionagi`` installed *after* core leaves lionagi's
``lionagi/service/__init__.py`` where core's was, so none of core's modules runs on a plain
``from lionagi.service import iModel``. Core's wheel therefore also installs a start-up guard
(``_lionagi_service_guard``, loaded by a ``.pth`` line) whose finder notices that file and
imports this layer instead, so the same error is raised there too.
"""

from __future__ import annotations

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


def check_installation() -> None:
    """Raise :class:`InstallationConflictError` when core's ``lionagi`` files are not intact."""
    namespace = sys.modules.get("lionagi")
    if namespace is not None and getattr(namespace, "__file__", None) is not None:
        raise InstallationConflictError(
            f"the '{LEGACY_DISTRIBUTION}'{_legacy_version()} distribution is installed in the "
            f"same environment as '{CORE_DISTRIBUTION}': it ships {namespace.__file__} and its "
            f"own lionagi/service, and the two overwrite each other's files. Fix: use separate "
            f"virtual environments, or run 'pip uninstall -y {LEGACY_DISTRIBUTION} "
            f"{CORE_DISTRIBUTION}' then 'pip install {CORE_DISTRIBUTION}' (see {_GUIDE})",
            distribution=LEGACY_DISTRIBUTION,
        )
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
