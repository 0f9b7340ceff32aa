"""Shared helpers of the release tests (wheels built and installed into fresh virtualenvs)."""

from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def uv_env(*drop: str) -> dict[str, str]:
    """This environment for a ``uv`` child: no interpreter downloads, outside any venv."""
    env = {**os.environ, "UV_PYTHON_DOWNLOADS": "never"}
    for name in ("VIRTUAL_ENV", *drop):
        env.pop(name, None)
    return env


def members() -> dict[str, str]:
    """Distribution name → file stem prefix (wheel or sdist), for every workspace member."""
    found = {}
    for path in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        name = tomllib.loads(path.read_text(encoding="utf-8"))["project"]["name"]
        found[name] = name.replace("-", "_")
    return found


def uv_command() -> list[str]:
    """The ``uv`` to run: the one on ``PATH``, else the module in this interpreter.

    ``.ci/run`` installs uv with pip into the interpreter that runs pytest, so ``python -m uv``
    works where no ``uv`` executable is on ``PATH``.
    """
    found = shutil.which("uv")
    return [found] if found else [sys.executable, "-m", "uv"]
