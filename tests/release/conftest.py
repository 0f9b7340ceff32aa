"""Shared helpers of the release tests (wheels built and installed into fresh virtualenvs)."""

from __future__ import annotations

import shutil
import sys


def uv_command() -> list[str]:
    """The ``uv`` to run: the one on ``PATH``, else the module in this interpreter.

    ``.ci/run`` installs uv with pip into the interpreter that runs pytest, so ``python -m uv``
    works where no ``uv`` executable is on ``PATH``.
    """
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]
