"""Every distribution's sdist, built as a release builds it, stands alone outside the workspace.

One ``uv build --all-packages --no-sources`` builds an sdist and, from it, a wheel per
``packages/*`` member (discovered, never listed here). The sdist ships the member's
``pyproject.toml`` as written, so a ``workspace``/``path`` entry in its ``[tool.uv.sources]``
would name a workspace that does not exist where the sdist is unpacked: uv then refuses the
unpacked tree (``uv pip install .``, ``uv sync``: "references a workspace in ``tool.uv.sources``
..., but is not a workspace member"). The unpacked provider and testing sdists are installed with
uv into a fresh environment, core coming from its built wheel, and must yield the provider's rows.
"""

from __future__ import annotations

import json
import subprocess
import tarfile
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT, members, uv_command, uv_env

ENV = uv_env("GEMINI_API_KEY", "UV_NO_SOURCES")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    # Without --wheel/--sdist uv builds the sdist, then the wheel from that sdist.
    subprocess.run(
        [*uv_command(), "build", "--all-packages", "--no-sources", "-o", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=600, env=ENV,
    )  # fmt: skip
    return out


@pytest.fixture(scope="module")
def unpacked(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Distribution name → its sdist's unpacked top directory."""
    target = tmp_path_factory.mktemp("unpacked")
    found = {}
    for name, stem in members().items():
        [sdist] = dist.glob(f"{stem}-*.tar.gz")
        with tarfile.open(sdist) as archive:
            archive.extractall(target, filter="data")
        found[name] = target / sdist.name.removesuffix(".tar.gz")
    return found


def test_no_sdist_pyproject_names_a_workspace_or_path_source(unpacked: dict[str, Path]) -> None:
    for name, top in unpacked.items():
        data = tomllib.loads((top / "pyproject.toml").read_text(encoding="utf-8"))
        sources = data.get("tool", {}).get("uv", {}).get("sources", {})
        leaked = {
            dep: entry for dep, entry in sources.items()
            if any("workspace" in item or "path" in item
                   for item in (entry if isinstance(entry, list) else [entry]))
        }  # fmt: skip
        assert not leaked, f"{name}: the sdist's pyproject.toml carries {leaked}"
        metadata = (top / "PKG-INFO").read_text(encoding="utf-8")
        assert "@ file:" not in metadata, name
        names = {path.relative_to(top).as_posix() for path in top.rglob("*")}
        assert not [n for n in names if "__pycache__" in n or n.startswith("tests")], (name, names)


def test_wheel_from_sdist_matches_the_pyproject(dist: Path) -> None:
    # The wheel uv built from each sdist carries the metadata the source tree declares.
    for path in sorted((ROOT / "packages").glob("*/pyproject.toml")):
        project = tomllib.loads(path.read_text(encoding="utf-8"))["project"]
        stem = project["name"].replace("-", "_")
        [wheel] = dist.glob(f"{stem}-{project['version']}-py3-none-any.whl")
        with zipfile.ZipFile(wheel) as archive:
            [meta] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
            text = archive.read(meta).decode()
        assert f"Name: {project['name']}\n" in text
        assert f"Requires-Python: {project['requires-python']}\n" in text


def test_unpacked_provider_sdist_installs_with_uv_outside_the_workspace(
    dist: Path, unpacked: dict[str, Path], tmp_path: Path
) -> None:
    env = tmp_path / "env"
    venv.create(env, with_pip=False, symlinks=True)
    python = env / "bin" / "python"
    # Core is not on the index: its wheel comes from this build (--find-links).
    done = subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(python), "--find-links", str(dist),
         str(unpacked["lionagi-provider-gemini"]), str(unpacked["lionagi-service-testing"])],
        capture_output=True, text=True, timeout=300, cwd=tmp_path, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    listed = subprocess.run(
        [str(env / "bin" / "lionagi-service"), "providers", "--json"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV,
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    providers = sorted(p["provider"] for p in json.loads(listed.stdout)["providers"])
    assert providers == ["gemini", "scripted"]
