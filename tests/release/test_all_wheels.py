"""Every distribution of the workspace, built as a release builds it, carries what it must.

One ``uv build --all-packages --no-sources --wheel`` builds a wheel per ``packages/*`` member
(discovered, never listed here). Each must carry the workspace's Apache-2.0 ``LICENSE`` in its
``.dist-info/licenses/`` and no ``lionagi/__init__.py`` (which would end the PEP 420 namespace).
The meta-distribution's wheel installs, from the built wheels only, into a fresh environment as
``lionagi-service[openai,claude-code]`` and yields exactly those providers' catalog rows.
"""

from __future__ import annotations

import json
import re
import subprocess
import venv
import zipfile
from pathlib import Path

import pytest

from .conftest import ROOT, members, uv_command, uv_env

ENV = uv_env()


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("dist")
    subprocess.run(
        [*uv_command(), "build", "--all-packages", "--no-sources", "--wheel", "-o", str(out)],
        cwd=ROOT, check=True, capture_output=True, timeout=600, env=ENV,
    )  # fmt: skip
    found = {}
    for name, stem in members().items():
        [found[name]] = out.glob(f"{stem}-*-py3-none-any.whl")
    return found


def test_every_wheel_carries_the_license_and_no_namespace_init(wheels: dict[str, Path]) -> None:
    license_text = (ROOT / "LICENSE").read_bytes()
    assert b"Apache License" in license_text
    assert b"Version 2.0, January 2004" in license_text
    for name, wheel in wheels.items():
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
            licenses = [n for n in names if n.endswith(".dist-info/licenses/LICENSE")]
            assert len(licenses) == 1, f"{name}: {names}"
            assert archive.read(licenses[0]) == license_text, name
            assert "lionagi/__init__.py" not in names, name
            [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
            meta = archive.read(metadata).decode()
            assert "License-Expression: Apache-2.0" in meta, name
            assert "License-File: LICENSE" in meta, name


def test_every_wheel_is_clean_typed_and_says_how_to_install_it(wheels: dict[str, Path]) -> None:
    for name, wheel in wheels.items():
        with zipfile.ZipFile(wheel) as archive:
            names = archive.namelist()
            [metadata] = [n for n in names if n.endswith(".dist-info/METADATA")]
            meta = archive.read(metadata).decode()
        assert "lionagi/providers/__init__.py" not in names, name
        stray = [n for n in names if "__pycache__" in n or n.endswith(".pyc") or "/tests/" in n
                 or n.startswith("tests/")]  # fmt: skip
        assert not stray, (name, stray)
        # Every package directory holding modules is typed (PEP 561) where it is a top module.
        modules = {n.rsplit("/", 1)[0] for n in names if n.endswith("/__init__.py")}
        tops = {m for m in modules if m.rsplit("/", 1)[0] not in modules}
        assert all(f"{top}/py.typed" in names for top in tops), (name, tops)
        # The long description (the PyPI page) is Markdown and shows the install line.
        assert "Description-Content-Type: text/markdown" in meta, name
        description = meta.split("\n\n", 1)[1]
        installs = [line for line in description.splitlines() if "pip install" in line]
        assert any(re.search(rf"\b{re.escape(name)}(?![\w-])", line) for line in installs), (
            f"{name}: its long description shows no `pip install` line naming it"
        )


def test_meta_wheel_installs_the_providers_its_extras_name(
    wheels: dict[str, Path], tmp_path: Path
) -> None:
    meta = wheels["lionagi-service"]
    with zipfile.ZipFile(meta) as archive:
        assert all(".dist-info/" in n for n in archive.namelist()), "metadata only"
    env = tmp_path / "env"
    venv.create(env, with_pip=False, symlinks=True)
    python = env / "bin" / "python"
    # The built wheels are offered as a flat index; the installer picks what the extras name.
    # Third-party dependencies come from the index (uv's cache).
    subprocess.run(
        [*uv_command(), "pip", "install", "--python", str(python),
         f"lionagi-service[openai,claude-code] @ {meta.as_uri()}",
         "--find-links", str(meta.parent)],
        check=True, capture_output=True, timeout=300, env=ENV,
    )  # fmt: skip
    listing = subprocess.run(
        [*uv_command(), "pip", "list", "--python", str(python), "--format", "json"],
        check=True, capture_output=True, text=True, timeout=60, env=ENV,
    )  # fmt: skip
    installed = {row["name"] for row in json.loads(listing.stdout)}
    ours = sorted(name for name in installed if name.startswith("lionagi"))
    assert ours == [
        "lionagi-provider-claude-code", "lionagi-provider-openai", "lionagi-service",
        "lionagi-service-core",
    ]  # fmt: skip
    for name in ours:  # installed from this build, not from an index
        [record] = (env / "lib").glob(f"python*/site-packages/{name.replace('-', '_')}-*.dist-info")
        with zipfile.ZipFile(wheels[name]) as archive:
            [metadata] = [n for n in archive.namelist() if n.endswith(".dist-info/METADATA")]
            assert (record / "METADATA").read_bytes() == archive.read(metadata), name
    done = subprocess.run(
        [str(env / "bin" / "lionagi-service"), "providers", "--json"],
        capture_output=True, text=True, timeout=60, cwd=tmp_path, env=ENV,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    providers = sorted(p["provider"] for p in json.loads(done.stdout)["providers"])
    assert providers == ["claude_code", "openai", "scripted"]
