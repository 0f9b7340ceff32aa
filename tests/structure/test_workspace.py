"""Workspace shape the user fixed: PEP 420 namespace, one distribution per package, all tested."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = sorted(p for p in (ROOT / "packages").iterdir() if (p / "pyproject.toml").exists())


def _ships_code(pkg: Path) -> bool:
    # The meta-distribution `lionagi-service` is metadata only (`module-name = []`): no src/.
    data = tomllib.loads((pkg / "pyproject.toml").read_text())
    return data.get("tool", {}).get("uv", {}).get("build-backend", {}).get("module-name") != []


CODE_PACKAGES = [pkg for pkg in PACKAGES if _ships_code(pkg)]


def test_no_namespace_init_files() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for pkg in PACKAGES
        for path in [
            pkg / "src" / "lionagi" / "__init__.py",
            pkg / "src" / "lionagi" / "providers" / "__init__.py",
        ]
        if path.exists()
    ]
    assert offenders == [], f"PEP 420 namespace broken by {offenders}"


def test_every_package_is_a_dev_dependency_of_the_root() -> None:
    # `uv run pytest` installs the root dev group: a package missing there is never tested.
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    dev = set(root["dependency-groups"]["dev"])
    sources = root["tool"]["uv"]["sources"]
    for pkg in PACKAGES:
        name = tomllib.loads((pkg / "pyproject.toml").read_text())["project"]["name"]
        assert name in dev, f"{name} is not in the root dev group"
        assert sources.get(name) == {"workspace": True}, f"{name} is not mapped to the workspace"


def test_every_package_has_release_files() -> None:
    for pkg in PACKAGES:
        meta = tomllib.loads((pkg / "pyproject.toml").read_text())["project"]
        assert isinstance(meta.get("version"), str), f"{pkg.name}: static version required"
        for name in ("README.md", "CHANGELOG.md"):
            assert (pkg / name).is_file(), f"{pkg.name}: missing {name}"
        if pkg not in CODE_PACKAGES:
            assert not (pkg / "src").exists(), f"{pkg.name}: metadata-only, yet has src/"
            continue
        typed = list((pkg / "src").rglob("py.typed"))
        assert typed, f"{pkg.name}: missing py.typed"


def test_mypy_checks_every_package() -> None:
    root = tomllib.loads((ROOT / "pyproject.toml").read_text())
    files = set(root["tool"]["mypy"]["files"])
    for pkg in CODE_PACKAGES:
        assert f"packages/{pkg.name}/src" in files, f"{pkg.name} is not type-checked"


def _shipped_data_dirs(pkg: Path) -> set[str]:
    backend = tomllib.loads((pkg / "pyproject.toml").read_text())["tool"]["uv"]["build-backend"]
    return {str(Path(where).parts[0]) for where in backend.get("data", {}).values()}


def test_package_code_lives_under_src() -> None:
    # A module outside src/ would be invisible to the build and easy to mistake for shipped code,
    # unless the build ships its directory as wheel data (core's start-up guard in `startup/`).
    stray = [
        str(path.relative_to(ROOT))
        for pkg in PACKAGES
        for path in pkg.rglob("*.py")
        if path.relative_to(pkg).parts[0] not in {"src", "tests", *_shipped_data_dirs(pkg)}
    ]
    assert stray == []


# pytest settings that only a plugin defines: under --strict-config a package's own table may
# use them only when its dev group installs that plugin (run alone, nothing else provides it).
PLUGIN_OPTIONS = {"timeout": "pytest-timeout", "asyncio_mode": "pytest-asyncio",
                  "asyncio_default_fixture_loop_scope": "pytest-asyncio"}  # fmt: skip


def test_every_package_can_be_tested_alone() -> None:
    # What scripts/test-packages runs: `uv run --package X --exact --group dev pytest
    # packages/X`. It needs tests beside the package, pytest in its dev group, and a pytest table
    # of its own (else pytest reads the root's, which names plugins the package lacks).
    for pkg in PACKAGES:
        data = tomllib.loads((pkg / "pyproject.toml").read_text())
        assert list((pkg / "tests").glob("test_*.py")), f"{pkg.name}: no tests/test_*.py"
        dev = [d.replace(" ", "") for d in data.get("dependency-groups", {}).get("dev", [])]
        names = {re.split(r"[<>=!~\[;]", item, maxsplit=1)[0] for item in dev}
        assert "pytest" in names, f"{pkg.name}: dev group lacks pytest"
        options = data.get("tool", {}).get("pytest", {}).get("ini_options")
        assert options is not None, f"{pkg.name}: no [tool.pytest.ini_options]"
        assert options.get("testpaths") == ["tests"], pkg.name
        for option, plugin in PLUGIN_OPTIONS.items():
            if option in options:
                assert plugin in names, f"{pkg.name}: sets {option} without {plugin} in dev"
