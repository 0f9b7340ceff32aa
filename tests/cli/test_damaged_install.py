"""The command line on a damaged installation: one line and exit 2, not a traceback.

Uninstalling the published ``lionagi`` after core removes core's ``lionagi/service/__init__.py``
(both distributions list it). Core's modules then fail to import with
``InstallationConflictError``, whose message says how to repair the environment; the command
line must pass that on the way it reports any configuration error. The layout is rebuilt by
hand: core's source linked file by file without the ``__init__.py``, on ``PYTHONPATH``, and the
interpreter run with ``-S`` so the workspace's editable ``.pth`` line does not put the intact
source (and its import guard) back on the path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import lionagi.service as core

from ._support import HANG_GUARD


def _damaged(root: Path) -> Path:
    source = Path(core.__file__).parent
    service = root / "lionagi" / "service"
    service.mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name not in ("__init__.py", "__pycache__"):
            (service / entry.name).symlink_to(entry, target_is_directory=entry.is_dir())
    return root


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    path = os.pathsep.join([str(root), sysconfig.get_paths()["purelib"]])
    code = "import sys; from lionagi.service.cli import main; sys.exit(main())"
    return subprocess.run(
        [sys.executable, "-S", "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
        env={**os.environ, "PYTHONPATH": path},
        check=False,
    )


@pytest.mark.parametrize("command", [["demo"], ["providers"], ["chat", "scripted/demo", "hi"]])
def test_a_missing_core_init_is_one_error_line_and_exit_2(
    tmp_path: Path, command: list[str]
) -> None:
    done = _run(_damaged(tmp_path), *command)

    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("error: InstallationConflictError: "), lines[0]
    assert "pip install --force-reinstall --no-deps lionagi-service-core" in lines[0]


def test_json_mode_ends_with_the_exception_record(tmp_path: Path) -> None:
    done = _run(_damaged(tmp_path), "demo", "--json")

    assert done.returncode == 2, done.stderr
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert record["type"] == "exception"
    assert record["error"] == "InstallationConflictError"
    assert "is damaged" in record["message"]
