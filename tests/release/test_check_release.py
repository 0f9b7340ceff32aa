"""``scripts/check-release`` on a copy of the workspace, pristine and with planted inconsistencies.

Each case copies what the script reads (the root ``pyproject.toml`` and ``LICENSE``, and every
package's ``pyproject.toml``, ``CHANGELOG.md``, ``LICENSE`` and top module's ``__init__.py``) into
a temporary directory, breaks one thing, and requires the script to exit 1 with a line naming the
package and field.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check-release"
CORE = "lionagi-service-core"


def _copy(dest: Path) -> Path:
    for name in ("pyproject.toml", "LICENSE"):
        shutil.copy(ROOT / name, dest / name)
    for package in (ROOT / "packages").iterdir():
        if not (package / "pyproject.toml").is_file():
            continue
        target = dest / "packages" / package.name
        target.mkdir(parents=True)
        for name in ("pyproject.toml", "CHANGELOG.md", "LICENSE", "README.md"):
            if (package / name).exists():
                shutil.copy(package / name, target / name)
        data = tomllib.loads((package / "pyproject.toml").read_text(encoding="utf-8"))
        module = data.get("tool", {}).get("uv", {}).get("build-backend", {}).get("module-name")
        if isinstance(module, str):  # the top module's __init__.py (its __version__, if any)
            init = Path("src", *module.split("."), "__init__.py")
            if (package / init).is_file():
                (target / init).parent.mkdir(parents=True)
                shutil.copy(package / init, target / init)
    return dest


def _run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip


def _edit(path: Path, old: str, new: str, count: int = 1) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


def test_the_workspace_as_it_stands_is_consistent(tmp_path: Path) -> None:
    done = _run(_copy(tmp_path))
    assert done.returncode == 0, done.stderr
    count = len(list((ROOT / "packages").glob("*/pyproject.toml")))
    assert f"{count} packages consistent" in done.stdout
    assert f"{CORE}==" in done.stdout


def _bump_core_past_the_ranges(root: Path) -> None:
    core = root / "packages" / CORE
    _edit(core / "pyproject.toml", 'version = "0.1.0"', 'version = "0.2.0"')
    _edit(core / "CHANGELOG.md", "\n## 0.1.0", "\n## 0.2.0\n\n- Bumped.\n\n## 0.1.0")


def _bump_provider_without_changelog(root: Path) -> None:
    _edit(root / "packages/lionagi-provider-groq/pyproject.toml", 'version = "0.1.0"',
          'version = "0.1.1"')  # fmt: skip


def _dynamic_version(root: Path) -> None:
    _edit(root / "packages/lionagi-provider-exa/pyproject.toml", 'version = "0.1.0"',
          'dynamic = ["version"]')  # fmt: skip


def _meta_drops_an_extra(root: Path) -> None:
    path = root / "packages/lionagi-service/pyproject.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(re.sub(r"(?m)^openai = \[.*\]\n", "", text), encoding="utf-8")


def _new_provider_without_extra(root: Path) -> None:
    source = root / "packages/lionagi-provider-openai"
    target = root / "packages/lionagi-provider-acme"
    shutil.copytree(source, target)
    _edit(target / "pyproject.toml", 'name = "lionagi-provider-openai"',
          'name = "lionagi-provider-acme"')  # fmt: skip


def _bare_core_requirement(root: Path) -> None:
    _edit(root / "packages/lionagi-provider-pi/pyproject.toml", '"lionagi-service-core>=0.1,<0.2"',
          '"lionagi-service-core"')  # fmt: skip


def _testing_range_excludes_testing(root: Path) -> None:
    _edit(root / "packages/lionagi-provider-deepseek/pyproject.toml",
          '"lionagi-service-testing>=0.1,<0.2"', '"lionagi-service-testing>=0.2"')  # fmt: skip


def _bare_testing_in_dev_group(root: Path) -> None:
    _edit(root / "packages/lionagi-provider-groq/pyproject.toml",
          '"lionagi-service-testing>=0.1,<0.2"', '"lionagi-service-testing"')  # fmt: skip


def _no_license_files(root: Path) -> None:
    _edit(root / "packages/lionagi-provider-codex/pyproject.toml", 'license-files = ["LICENSE"]\n',
          "")  # fmt: skip


def _license_text_differs(root: Path) -> None:
    (root / "packages/lionagi-provider-ollama/LICENSE").write_text("MIT\n", encoding="utf-8")


def _member_workspace_source(root: Path) -> None:
    path = root / "packages/lionagi-provider-groq/pyproject.toml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + '\n[tool.uv.sources]\nlionagi-service-core = { workspace = true }\n',
                    encoding="utf-8")  # fmt: skip


def _runtime_version_behind(root: Path) -> None:
    core = root / "packages" / CORE
    _edit(core / "pyproject.toml", 'version = "0.1.0"', 'version = "0.1.1"')
    _edit(core / "CHANGELOG.md", "\n## 0.1.0", "\n## 0.1.1\n\n- Fixed.\n\n## 0.1.0")


def _relative_readme_link(root: Path) -> None:
    path = root / "packages/lionagi-provider-groq/README.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + "\nSee [the guide](../../docs/providers/groq.md).\n", encoding="utf-8")


CASES: dict[str, tuple[Callable[[Path], None], list[str]]] = {
    "core bumped past the providers' ranges": (
        _bump_core_past_the_ranges,
        ["lionagi-provider-openai: dependencies: 'lionagi-service-core>=0.1,<0.2' does not admit "
         "lionagi-service-core's current version 0.2.0",
         "lionagi-service: dependencies:",
         "lionagi-service-testing: dependencies:"],
    ),
    "version without changelog entry": (
        _bump_provider_without_changelog,
        ["lionagi-provider-groq: CHANGELOG.md has no '## 0.1.1' entry"],
    ),
    "dynamic version": (
        _dynamic_version, ["lionagi-provider-exa: project.version must be static"],
    ),
    "meta-distribution lost an extra": (
        _meta_drops_an_extra,
        ["lionagi-service: optional-dependencies.openai must be exactly "
         "['lionagi-provider-openai']"],
    ),
    "new provider without an extra": (
        _new_provider_without_extra,
        ["lionagi-service: optional-dependencies.acme must be exactly ['lionagi-provider-acme']",
         "lionagi-service: optional-dependencies.all does not name lionagi-provider-acme",
         "root pyproject.toml: dependency-groups.dev does not list lionagi-provider-acme"],
    ),
    "bare requirement on core": (
        _bare_core_requirement,
        ["lionagi-provider-pi: dependencies: 'lionagi-service-core' states no version range"],
    ),
    "dev group excludes testing's version": (
        _testing_range_excludes_testing,
        ["lionagi-provider-deepseek: dependency-groups.dev: 'lionagi-service-testing>=0.2' does "
         "not admit lionagi-service-testing's current version 0.1.0"],
    ),
    "bare requirement on testing in a dev group": (
        _bare_testing_in_dev_group,
        ["lionagi-provider-groq: dependency-groups.dev: 'lionagi-service-testing' states no "
         "version range on lionagi-service-testing (a member's dev group must bound it"],
    ),
    "no license-files": (
        _no_license_files, ["lionagi-provider-codex: project.license-files must list 'LICENSE'"],
    ),
    "member declares a workspace source (ships in its sdist)": (
        _member_workspace_source,
        ["lionagi-provider-groq: tool.uv.sources.lionagi-service-core is a workspace/path source"],
    ),
    "runtime __version__ left behind by a bump": (
        _runtime_version_behind,
        ["lionagi-service-core: __version__ = '0.1.0' in src/lionagi/service/__init__.py differs "
         "from project.version '0.1.1'"],
    ),
    "published README links relatively (dead on PyPI)": (
        _relative_readme_link,
        ["lionagi-provider-groq: README.md links to '../../docs/providers/groq.md', a relative "
         "link"],
    ),
    "license copy differs": (
        _license_text_differs,
        ["lionagi-provider-ollama: LICENSE differs from the workspace root's LICENSE"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_planted_inconsistency_fails_with_a_line_naming_it(tmp_path: Path, case: str) -> None:
    plant, expected = CASES[case]
    root = _copy(tmp_path)
    plant(root)
    done = _run(root)
    assert done.returncode == 1, done.stdout
    for line in expected:
        assert line in done.stderr, done.stderr
    assert all(row.startswith("check-release: ") for row in done.stderr.splitlines())
