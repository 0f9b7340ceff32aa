"""PEP 562 re-exports for a provider package whose heavy modules load on first use.

A vendor package's ``__init__`` is what the catalog imports for *every* command (its entry point
names it), so it must not import the vendor's endpoint classes and pydantic models; yet
``from lionagi.providers.groq import GroqChat`` is public API. :func:`lazy_exports` gives the
package a module ``__getattr__``/``__dir__`` that imports the defining submodule when a name is
first read and caches the value in the package namespace, so each name costs one import once.
One helper for every vendor, instead of a copy of this code in each.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Return `(__getattr__, __dir__)` serving `exports` lazily for module `package`.

    Args:
        package: the package's `__name__`.
        exports: relative submodule (`"._endpoint"`) to the public names it defines.

    Usage, in a provider's `__init__.py` (keep the names in `__all__` and import them under
    `TYPE_CHECKING` so type checkers see them):

        __getattr__, __dir__ = lazy_exports(__name__, {"._endpoint": ("GroqChat",)})

    An unknown name raises `AttributeError` as a plain module would; an import failure of the
    submodule propagates unchanged (the catalog turns it into its typed error on first match).
    """
    owners = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str) -> object:
        module = owners.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(owners))

    return __getattr__, __dir__
