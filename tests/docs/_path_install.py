"""Run a provider's tests as if it were installed, without building or installing anything.

The docs tests take a provider module from a page or the template, make it visible to the
catalog path-wise (a hand-written ``.dist-info`` carrying its ``lionagi.providers`` entry
points, as the provider guide describes) and run its conformance classes in a fresh pytest
process with no async plugin, as an adapter author's own checkout would.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path


def write_dist_info(site: Path, name: str, version: str, entries: Mapping[str, str]) -> None:
    """A minimal ``.dist-info`` for ``name`` in ``site`` with its provider entry points."""
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8"
    )
    lines = "".join(f"{key} = {value}\n" for key, value in entries.items())
    (info / "entry_points.txt").write_text(f"[lionagi.providers]\n{lines}", encoding="utf-8")


def run_tests(cwd: Path, paths: Sequence[Path]) -> subprocess.CompletedProcess[str]:
    """``pytest tests`` in ``cwd`` with ``paths`` importable and the config home isolated."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [*map(str, paths), env.get("PYTHONPATH")]))
    env["LIONAGI_SERVICE_CONFIG_HOME"] = "isolated"
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:asyncio"]
    return subprocess.run(
        [*argv, "tests"],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
