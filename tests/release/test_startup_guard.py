"""Core's start-up guard, offline: a foreign ``lionagi/service/__init__.py`` in core's place.

The real co-installation runs in ``test_lionagi_coexistence.py`` (it downloads the published
``lionagi``). These cases build the same file layout by hand on ``PYTHONPATH`` — a foreign
``__init__.py`` with core's private ``_base`` layer beside it, as pip leaves it — and check that
the guard the workspace's ``.pth`` line installed turns a plain import into core's error. (The
missing-file case needs an environment without core's editable source on the path: it runs in
``test_lionagi_coexistence.py``.)
"""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import lionagi.service._base as core_base

from .conftest import uv_command

FOREIGN = "raise SystemExit('foreign lionagi/service/__init__.py ran')\n"


def _tree(root: Path, *, top_init: bool) -> Path:
    service = root / "lionagi" / "service"
    service.mkdir(parents=True)
    if top_init:
        (root / "lionagi" / "__init__.py").write_text("from . import service\n")
        # The published lionagi's metadata: its RECORD is how core's check tells it apart from
        # a provider wheel, or a source tree, that has a lionagi/__init__.py too.
        info = root / "lionagi-0.36.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: lionagi\nVersion: 0.36.0\n")
        (info / "RECORD").write_text("lionagi/__init__.py,,\nlionagi/service/__init__.py,,\n")
    (service / "__init__.py").write_text(FOREIGN)
    (service / "_base").symlink_to(Path(core_base.__file__).parent, target_is_directory=True)
    return root


def _import(root: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(root)}
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, env=env,
        check=False,
    )  # fmt: skip


def _last(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, (done.stdout, done.stderr)
    return done.stderr.strip().splitlines()[-1]


def test_the_workspace_interpreter_runs_the_guard() -> None:
    import _lionagi_service_guard as guard

    assert guard._Guard in sys.meta_path
    init = Path(core_base.__file__).parents[1] / "__init__.py"
    assert guard.MARKER in init.read_bytes()


@pytest.mark.parametrize("top_init", [True, False], ids=["legacy-lionagi", "foreign-service"])
def test_a_foreign_service_init_fails_with_cores_error(tmp_path: Path, top_init: bool) -> None:
    root = _tree(tmp_path, top_init=top_init)
    last = _last(_import(root, "from lionagi.service import iModel"))
    assert last.startswith("lionagi.service._base.errors.InstallationConflictError: "), last
    assert "'lionagi" in last and "lionagi-service-core" in last
    assert "pip uninstall -y lionagi lionagi-service-core" in last
    assert "ran" not in last  # the foreign file never ran


def test_a_directory_without_cores_files_is_left_alone(tmp_path: Path) -> None:
    service = tmp_path / "lionagi" / "service"
    service.mkdir(parents=True)
    (tmp_path / "lionagi" / "__init__.py").write_text("")
    (service / "__init__.py").write_text("print('theirs')\n")
    done = _import(tmp_path, "import lionagi.service")
    assert (done.returncode, done.stdout.strip()) == (0, "theirs"), done.stderr


def test_cores_wheel_installs_the_guard_beside_the_packages(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        [*uv_command(), "build", "--package", "lionagi-service-core", "--wheel",
         "--no-sources", "-o", str(tmp_path)],
        cwd=root, check=True, capture_output=True, timeout=300,
        env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
    )  # fmt: skip
    [wheel] = tmp_path.glob("lionagi_service_core-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    data = [n.split("/", 2)[-1] for n in names if ".data/purelib/" in n and not n.endswith("/")]
    assert sorted(data) == [
        "_lionagi_service_cli.py",
        "_lionagi_service_guard.py",
        "lionagi_service_core_guard.pth",
    ]
    # The console script enters through the top-level wrapper, which can report the guard's
    # refusal; entering at lionagi.service.cli let that refusal escape as a traceback.
    entry = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt")))
    assert b"lionagi-service = _lionagi_service_cli:main" in entry
    line = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("_guard.pth")))
    assert line == b"import _lionagi_service_guard\n"
