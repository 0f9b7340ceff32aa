"""Co-installation with the published ``lionagi`` distribution, for real (issue 17, item 5).

``lionagi`` 0.36 ships ``lionagi/__init__.py`` and its own ``lionagi/service/__init__.py``; pip
installs it over core's files (or core over its files) without a word, and uninstalling it
afterwards deletes the file core needs while ``pip check`` stays clean. Each test builds a fresh
virtual environment outside the workspace, installs the two distributions with pip in the order
under test (``--no-deps``, so pip's file handling is what runs; their dependencies come first from
uv's cache) and checks that core refuses to run with one ``InstallationConflictError`` naming both
distributions and the fix, and that the fix it names works.

The published wheel is downloaded once from PyPI into ``~/.cache/lionagi-service/wheels`` (CI
reaches PyPI; it installs uv from there) and reused; marked ``network``.
"""

from __future__ import annotations

import os
import subprocess
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from .conftest import uv_command

pytestmark = pytest.mark.network

ROOT = Path(__file__).resolve().parents[2]
LEGACY_PIN = "lionagi==0.36.*"
CACHE = Path.home() / ".cache" / "lionagi-service" / "wheels"
ENV = {**os.environ, "UV_PYTHON_DOWNLOADS": "never", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
ENV.pop("VIRTUAL_ENV", None)

IMPORT_IMODEL = "from lionagi.service import iModel; print(iModel.__module__)"


def _run(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(arg) for arg in args], capture_output=True, text=True, timeout=timeout, env=ENV,
        check=False,
    )  # fmt: skip


def _ok(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = _run(*args, timeout=timeout)
    assert done.returncode == 0, f"{args}: {done.stdout}\n{done.stderr}"
    return done


def _runtime_requirements(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        [name] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
        text = archive.read(name).decode()
    found = []
    for line in text.splitlines():
        if line.startswith("Requires-Dist:"):
            requirement = Requirement(line.split(":", 1)[1].strip())
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                requirement.marker = None
                found.append(str(requirement))
    return found


@pytest.fixture(scope="module")
def core_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [*uv_command(), "build", "--package", "lionagi-service-core", "--no-sources", "--wheel",
         "-o", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=180, env=ENV,
    )  # fmt: skip
    [wheel] = out.glob("lionagi_service_core-*.whl")
    return wheel


@pytest.fixture(scope="module")
def legacy_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published lionagi 0.36 wheel, from the cache or downloaded into it once."""
    cached = sorted(CACHE.glob("lionagi-0.36.*-py3-none-any.whl"))
    if cached:
        return cached[-1]
    tool = tmp_path_factory.mktemp("pip") / "env"
    _ok(*uv_command(), "venv", "--quiet", "--seed", tool)
    CACHE.mkdir(parents=True, exist_ok=True)
    _ok(tool / "bin" / "python", "-m", "pip", "download", "--quiet", "--no-deps",
        "--only-binary", ":all:", "--dest", CACHE, LEGACY_PIN)  # fmt: skip
    [wheel] = sorted(CACHE.glob("lionagi-0.36.*-py3-none-any.whl"))[-1:]
    return wheel


@pytest.fixture
def env(tmp_path: Path, core_wheel: Path, legacy_wheel: Path) -> Path:
    """A fresh venv with pip and both distributions' dependencies, neither distribution."""
    path = tmp_path / "env"
    _ok(*uv_command(), "venv", "--quiet", "--seed", path)
    python = path / "bin" / "python"
    requirements = _runtime_requirements(core_wheel) + _runtime_requirements(legacy_wheel)
    _ok(*uv_command(), "pip", "install", "--quiet", "--python", python, *requirements)
    return path


def _pip(env: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return _ok(env / "bin" / "python", "-m", "pip", *args)


def _assert_conflict(done: subprocess.CompletedProcess[str], *fix: str) -> None:
    assert done.returncode != 0, done.stdout
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("lionagi.service._base.errors.InstallationConflictError: "), last
    assert "'lionagi" in last
    assert "lionagi-service-core" in last
    for words in fix:
        assert words in last, last


def _assert_cli_conflict(done: subprocess.CompletedProcess[str], *fix: str) -> None:
    """The command line reports the refusal as any configuration error: one line, exit 2."""
    assert done.returncode == 2, (done.returncode, done.stderr)
    assert "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith("error: InstallationConflictError: "), line
    for words in fix:
        assert words in line, line


LEGACY_FIX = "pip uninstall -y lionagi lionagi-service-core"
DAMAGED_FIX = "pip install --force-reinstall --no-deps lionagi-service-core"


def _assert_core_works(env: Path) -> None:
    done = _ok(env / "bin" / "python", "-c", IMPORT_IMODEL)
    assert done.stdout.strip() == "lionagi.service._facade.imodel"
    providers = _ok(env / "bin" / "lionagi-service", "providers", "--json")
    assert '"scripted"' in providers.stdout


def test_lionagi_installed_after_core_fails_at_core_use(
    env: Path, core_wheel: Path, legacy_wheel: Path
) -> None:
    _pip(env, "install", "--no-deps", core_wheel)
    _pip(env, "install", "--no-deps", legacy_wheel)
    python = env / "bin" / "python"
    # lionagi's own lionagi/service/__init__.py now stands where core's was, so none of core's
    # modules runs on a plain `from lionagi.service import iModel`: core's start-up guard (a
    # `.pth` line) sees the foreign file and raises core's error there too, as it does on
    # every other way in (its command line, any provider distribution, any public submodule).
    assert list((env / "lib").glob("python*/site-packages/lionagi_service_core_guard.pth"))
    _assert_conflict(_run(python, "-c", IMPORT_IMODEL), LEGACY_FIX)
    _assert_conflict(_run(python, "-c", "import lionagi.service"), LEGACY_FIX)
    _assert_cli_conflict(_run(env / "bin" / "lionagi-service", "providers"), LEGACY_FIX)
    _assert_conflict(_run(python, "-c", "import lionagi.service.http"), LEGACY_FIX)
    _assert_conflict(_run(python, "-c", "import lionagi.service.agentic"), LEGACY_FIX)
    # The fix the message names restores a working core.
    _pip(env, "uninstall", "-y", "lionagi", "lionagi-service-core")
    _pip(env, "install", "--no-deps", core_wheel)
    _assert_core_works(env)


def test_core_installed_after_lionagi_fails_at_import(
    env: Path, core_wheel: Path, legacy_wheel: Path
) -> None:
    _pip(env, "install", "--no-deps", legacy_wheel)
    _pip(env, "install", "--no-deps", core_wheel)
    python = env / "bin" / "python"
    _assert_conflict(_run(python, "-c", IMPORT_IMODEL), LEGACY_FIX)
    _assert_conflict(_run(python, "-c", "import lionagi.service"), LEGACY_FIX)
    _assert_cli_conflict(_run(env / "bin" / "lionagi-service", "providers"), LEGACY_FIX)
    # Uninstalling lionagi now takes core's lionagi/service/__init__.py with it (the file is in
    # both RECORDs); pip check sees nothing wrong, core says what happened and how to repair.
    _pip(env, "uninstall", "-y", "lionagi")
    assert _run(python, "-m", "pip", "check").returncode == 0
    _assert_conflict(_run(python, "-c", IMPORT_IMODEL.replace("from lionagi.service import iModel",
                                                              "import lionagi.service.http")),
                     DAMAGED_FIX)  # fmt: skip
    _assert_cli_conflict(_run(env / "bin" / "lionagi-service", "providers"), DAMAGED_FIX)
    _pip(env, "install", "--force-reinstall", "--no-deps", core_wheel)
    _assert_core_works(env)


def test_uninstalling_lionagi_installed_over_core_is_reported(
    env: Path, core_wheel: Path, legacy_wheel: Path
) -> None:
    _pip(env, "install", "--no-deps", core_wheel)
    _pip(env, "install", "--no-deps", legacy_wheel)
    _pip(env, "uninstall", "-y", "lionagi")
    python = env / "bin" / "python"
    assert _run(python, "-m", "pip", "check").returncode == 0
    _assert_cli_conflict(_run(env / "bin" / "lionagi-service", "providers"), DAMAGED_FIX)
    _assert_conflict(_run(python, "-c", "import lionagi.service.lifecycle"), DAMAGED_FIX)
    # With no lionagi/service/__init__.py left, the guard reports the damage at the plain import
    # too, instead of the "cannot import name 'iModel' ... (unknown location)" Python would say.
    _assert_conflict(_run(python, "-c", IMPORT_IMODEL), DAMAGED_FIX)
    _pip(env, "install", "--force-reinstall", "--no-deps", core_wheel)
    _assert_core_works(env)
