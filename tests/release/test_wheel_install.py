"""Release hygiene: the built core wheel installs outside the workspace and works on its own.

Builds with ``uv build --no-sources`` (what a release does), installs the wheel into a fresh
virtual environment, and checks what a user of ``pip install lionagi-service-core`` gets: a
namespace package without ``lionagi/__init__.py``, a catalog holding exactly the installed
providers (the scripted one, via its entry point), and a working command line.
"""

from __future__ import annotations

import os
import re
import subprocess
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import uv_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [*uv_command(), "build", "--package", "lionagi-service-core", "--no-sources", "--wheel",
         "-o", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    wheels = list(out.glob("lionagi_service_core-*.whl"))
    assert len(wheels) == 1
    names = zipfile.ZipFile(wheels[0]).namelist()
    assert "lionagi/__init__.py" not in names
    assert "lionagi/service/py.typed" in names
    env_dir = tmp_path_factory.mktemp("venv") / "env"
    venv.create(env_dir, with_pip=False, symlinks=True)
    python = env_dir / "bin" / "python"
    # Dependencies come from the same place the workspace got them (uv's cache / the index).
    subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(python), str(wheels[0])],
        check=True, capture_output=True, timeout=300,
        env={**os.environ, "UV_PYTHON_DOWNLOADS": "never"},
    )  # fmt: skip
    return env_dir


def test_installed_wheel_imports_and_lists_exactly_what_is_installed(installed: Path) -> None:
    code = (
        "import json, lionagi, lionagi.service as s; "
        "assert not hasattr(lionagi, '__file__') or lionagi.__file__ is None; "
        "print(json.dumps([p['provider'] for p in s.EndpointRegistry.list_providers()]))"
    )
    done = subprocess.run(
        [str(installed / "bin" / "python"), "-c", code],
        capture_output=True, text=True, timeout=60, cwd=installed,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == '["scripted"]'


def test_the_python_example_on_cores_pypi_page_runs(installed: Path) -> None:
    [record] = (installed / "lib").glob("python*/site-packages/lionagi_service_core-*.dist-info")
    description = (record / "METADATA").read_text(encoding="utf-8").split("\n\n", 1)[1]
    blocks = re.findall(r"```python\n(.*?)```", description, re.DOTALL)
    assert blocks, "core's long description shows no Python example"
    done = subprocess.run(
        [str(installed / "bin" / "python"), "-W", "error", "-c", blocks[0]],
        capture_output=True, text=True, timeout=60, cwd=installed,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "You said: hello." in done.stdout


def test_installed_command_line_runs_the_demo(installed: Path) -> None:
    done = subprocess.run(
        [str(installed / "bin" / "lionagi-service"), "demo", "--json", "--pace", "0"],
        capture_output=True, text=True, timeout=60, cwd=installed,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert '"type": "result"' in done.stdout
