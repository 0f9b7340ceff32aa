"""Startup guard of lionagi-service-core: catch the published ``lionagi`` written over core.

pip lets two distributions own the same file. The published ``lionagi`` (0.x) ships its own
``lionagi/service/__init__.py``; installed after lionagi-service-core it replaces core's file
without a word, and from then on ``from lionagi.service import iModel`` runs lionagi's code. None
of core's modules executes on that path, so core's import-time check
(``lionagi.service._base.installation``) cannot see it. The only code of core that still runs
first is this module: core's wheel installs it with a ``.pth`` line, so the interpreter imports
it at start-up, and it puts one finder at the front of :data:`sys.meta_path`.

The finder acts on exactly one name, ``lionagi.service``. It asks the normal path finder for the
package and looks at what it found:

* core's own ``__init__.py`` (it carries :data:`MARKER`): the spec is returned unchanged;
* another distribution's ``__init__.py`` standing where core's was, or no ``__init__.py`` at all
  (what uninstalling ``lionagi`` leaves behind): the package is loaded by :class:`_Refusal`,
  which imports core's private ``_base`` layer, still intact beside it; that layer's check raises
  core's :class:`~lionagi.service.InstallationConflictError`, naming both distributions and the
  repair.

Every other import costs one string comparison. Nothing here reads metadata, and a directory
without core's files is left to the normal machinery (the guard of a core installed elsewhere
never claims another environment's ``lionagi``).
"""

import os
import sys

# Every interpreter of the environment imports this module at start-up, so it imports nothing
# that is not loaded by then: the import system's own frozen modules (which `importlib.machinery`
# re-exports; importing that package costs more than this whole module), no `typing`, no
# `collections.abc`, no `__future__` (annotations are strings instead).
try:
    from _frozen_importlib import ModuleSpec
    from _frozen_importlib_external import PathFinder
except ImportError:  # an interpreter without CPython's frozen bootstrap
    from importlib.machinery import ModuleSpec, PathFinder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.abc import Loader as _LoaderBase
    from types import ModuleType
else:
    _LoaderBase = object

__all__ = ["MARKER", "PACKAGE"]

PACKAGE = "lionagi.service"
#: Core's ``lionagi/service/__init__.py`` contains this text; no other distribution's does.
MARKER = b"lionagi-service-core owns this file"
_CHECK = os.path.join("_base", "installation.py")
_HEAD = 4096


class _Refusal(_LoaderBase):
    """Loader for a ``lionagi.service`` that is not core's: executing it raises core's error."""

    def create_module(self, spec: "ModuleSpec") -> "ModuleType | None":
        return None

    def exec_module(self, module: "ModuleType") -> None:
        # `_base` runs the installation check on import. It raises here: either the namespace
        # `lionagi` has an `__init__.py` of another distribution, or this package has no file.
        __import__(f"{PACKAGE}._base")
        # Reached only if another distribution's file stands in place of core's while
        # `lionagi` itself is still a namespace: the check could not tell, so say it here.
        installation = sys.modules[f"{PACKAGE}._base.installation"]
        installation.report_foreign_init(module.__spec__.origin if module.__spec__ else None)


class _Guard:
    """Meta path finder that only ever answers for :data:`PACKAGE`."""

    @staticmethod
    def find_spec(
        fullname: str, path: "Sequence[str] | None" = None, target: "ModuleType | None" = None
    ) -> "ModuleSpec | None":
        if fullname != PACKAGE:
            return None
        found = PathFinder.find_spec(fullname, path, target)
        if found is None or not found.submodule_search_locations:
            return found
        locations = list(found.submodule_search_locations)
        if not any(os.path.isfile(os.path.join(where, _CHECK)) for where in locations):
            return found  # not core's directory: nothing of ours to protect
        origin = found.origin
        if origin is not None and found.has_location and _is_core_init(origin):
            return found
        spec = ModuleSpec(fullname, _Refusal(), origin=origin, is_package=True)
        spec.submodule_search_locations = locations
        spec.has_location = origin is not None and found.has_location
        return spec

    @staticmethod
    def invalidate_caches() -> None:
        """Nothing cached: present so ``importlib.invalidate_caches()`` can call every finder."""


def _is_core_init(path: str) -> bool:
    try:
        with open(path, "rb") as handle:
            return MARKER in handle.read(_HEAD)
    except OSError:
        return False


def install() -> None:
    """Put the guard first on :data:`sys.meta_path` once (the ``.pth`` line imports this)."""
    if not any(finder is _Guard for finder in sys.meta_path):
        sys.meta_path.insert(0, _Guard)


install()
